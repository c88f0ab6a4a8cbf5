"""Training throughput of the PPO trainer and where an update's time goes.

    .venv/bin/python -m benchmarks.training_speed                 # the quick preset's shapes
    .venv/bin/python -m benchmarks.training_speed --preset gpu --num-envs 1024

Times, each as its own jitted function over the preset's batch (num_envs games, rollout_length
steps), the median of several runs after a compiling run:
- env: `rollout_length` auto-reset steps of the batch with uniformly random legal actions;
- forward: `rollout_length` forward passes of the network over the batch, with masked sampling;
- rollout: the trainer's rollout (env + forward + sampling + bookkeeping, one function);
- learn: GAE and the PPO epochs over one rollout (forward + backward + optimizer);
- update: one whole update (rollout + learn), as training runs it.
Training throughput is num_envs x rollout_length / update time. Prints a table and writes
benchmarks/results/training_speed.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import jax
from jaxcheckers.training.config import PRESETS, preset
from jaxcheckers.training.ppo import make_trainer

from jaxcheckers.agents.networks import sample_action
from jaxcheckers.agents.random import random_play_step

RESULTS = Path(__file__).resolve().parent / "results" / "training_speed.json"


def median_seconds(function, *args, runs: int = 5) -> float:
    jax.block_until_ready(function(*args))  # compile and warm up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        jax.block_until_ready(function(*args))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(config, runs: int) -> dict:
    trainer = make_trainer(config)
    env, steps = trainer.env, config.rollout_length
    state = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    num_envs = config.num_envs

    @jax.jit
    def env_only(env_state, key):
        def body(carry, _):
            env_state, key = carry
            key, step_key = jax.random.split(key)
            stepped = random_play_step(env, env_state, step_key)
            return (stepped.state, key), stepped.final.terminated.sum()

        return jax.lax.scan(body, (env_state, key), None, steps)

    @jax.jit
    def forward_only(params, env_state, key):
        def body(key, _):
            key, sample_key = jax.random.split(key)
            logits, value = trainer.network.apply(params, env_state.observation)
            return key, (sample_action(sample_key, logits, env_state.legal_action_mask), value)

        return jax.lax.scan(body, key, None, steps)

    rollout = jax.jit(trainer.rollout)
    learn = jax.jit(trainer.learn)
    key = jax.random.PRNGKey(1)
    played = (state.params, state.snapshot_params, state.env_state, state.league, key)
    _, _, transitions, last_value = rollout(*played)

    timings = {
        "env": median_seconds(env_only, state.env_state, key, runs=runs),
        "forward": median_seconds(forward_only, state.params, state.env_state, key, runs=runs),
        "rollout": median_seconds(rollout, *played, runs=runs),
        "learn": median_seconds(
            learn, state.params, state.opt_state, transitions, last_value, key, runs=runs
        ),
    }
    update = jax.jit(lambda s: trainer.update(s)[1])  # no donation: the state is reused
    timings["update"] = median_seconds(update, state, runs=runs)
    env_steps = num_envs * steps
    return {
        "config": {
            "game": config.game,
            "num_envs": num_envs,
            "rollout_length": steps,
            "network": config.network,
            "hidden_sizes": list(config.hidden_sizes),
            "num_epochs": config.num_epochs,
            "num_minibatches": config.num_minibatches,
        },
        "devices": [str(d) for d in jax.devices()],
        "seconds": timings,
        "env_steps_per_update": env_steps,
        "training_steps_per_s": env_steps / timings["update"],
        "share_of_update": {
            name: timings[name] / timings["update"] for name in ("env", "forward", "learn")
        },
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    parser.add_argument("--num-envs", type=int, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    changes = {"num_envs": args.num_envs} if args.num_envs else {}
    result = measure(preset(args.preset, **changes), args.runs)

    seconds, update = result["seconds"], result["seconds"]["update"]
    print(f"preset {args.preset}: {result['config']}")
    print("| piece | ms per update | share of the update |")
    print("|---|---:|---:|")
    for name, value in seconds.items():
        print(f"| {name} | {1000 * value:.1f} | {value / update:.0%} |")
    print(
        f"\ntraining throughput: {result['training_steps_per_s']:,.0f} env steps/s "
        f"({result['env_steps_per_update']} steps per update)"
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
