"""Training throughput of the PPO trainer and where an update's time goes.

    .venv/bin/python -m benchmarks.training_speed                 # the quick preset's shapes
    .venv/bin/python -m benchmarks.training_speed --preset gpu --num-envs 1024
    .venv/bin/python -m benchmarks.training_speed --variants gpu gpu@bfloat16 gpu-fast  # an A/B

Times, each as its own jitted function over the preset's batch (num_envs games, rollout_length
steps), the median of several runs after a compiling run:
- env: `rollout_length` auto-reset steps of the batch with uniformly random legal actions;
- forward: `rollout_length` forward passes of the network over the batch, with masked sampling;
- rollout: the trainer's rollout (env + forward + sampling + bookkeeping, one function);
- learn: GAE and the PPO epochs over one rollout (forward + backward + optimizer);
- update: one whole update (rollout + learn), as training runs it.
Training throughput is num_envs x rollout_length / update time. The learner's work is
estimated as 3 x the network's forward FLOPs (XLA's cost analysis of one forward pass over the
batch: forward and backward) x the samples of its epochs, and its achieved FLOP/s set against
the chip's dense peak where the chip is known (PEAK_FLOPS). Prints a table and writes
benchmarks/results/training_speed.json; with `--variants` (PRESET or PRESET@COMPUTE_DTYPE, each
measured in turn in this one process) every variant's result into
benchmarks/results/training_ab.json.
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
from jaxcheckers.training.precision import COMPUTE_DTYPES

from benchmarks.common import machine
from jaxcheckers.agents.networks import sample_action
from jaxcheckers.agents.random import random_play_step
from jaxcheckers.argtypes import check_writable, positive_int

RESULTS = Path(__file__).resolve().parent / "results" / "training_speed.json"
AB_RESULTS = RESULTS.with_name("training_ab.json")

# Dense (no sparsity) peak FLOP/s by compute dtype, from NVIDIA's H100 and H200 datasheets (SXM:
# BF16 989.5 T, TF32 494.7 T; H100 PCIe: 756 T and 378 T). XLA computes float32 matmuls and
# convolutions with TF32 on these chips by default, so TF32 is float32's peak. Keyed by a part of
# jax's device_kind.
PEAK_FLOPS = {
    "H100 PCIe": {"bfloat16": 756e12, "float32": 378e12},
    "H100": {"bfloat16": 989.5e12, "float32": 494.7e12},
    "H200": {"bfloat16": 989.5e12, "float32": 494.7e12},
}


def median_seconds(function, *args, runs: int = 5) -> float:
    jax.block_until_ready(function(*args))  # compile and warm up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        jax.block_until_ready(function(*args))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


PIECES = ("env", "forward", "rollout", "learn", "update")


def measure(config, runs: int, pieces=PIECES) -> dict:
    """The timings of `pieces` (learn and update at least: the throughput and FLOP/s need them)
    for `config`'s shapes, with the figures derived from them."""
    pieces = tuple(dict.fromkeys(("learn", "update", *pieces)))
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

    update = jax.jit(lambda s: trainer.update(s)[1])  # no donation: the state is reused
    timed = {
        "env": lambda: median_seconds(env_only, state.env_state, key, runs=runs),
        "forward": lambda: median_seconds(
            forward_only, state.params, state.env_state, key, runs=runs
        ),
        "rollout": lambda: median_seconds(rollout, *played, runs=runs),
        "learn": lambda: median_seconds(
            learn, state.params, state.opt_state, transitions, last_value, key, runs=runs
        ),
        "update": lambda: median_seconds(update, state, runs=runs),
    }
    timings = {name: timed[name]() for name in PIECES if name in pieces}
    env_steps = num_envs * steps
    learner_flops = 3 * forward_flops(trainer, state) * env_steps * config.num_epochs
    compute_dtype = getattr(config, "compute_dtype", "float32")
    peak = peak_flops(jax.devices()[0].device_kind, compute_dtype)
    achieved = learner_flops / timings["learn"] if learner_flops else None
    return {
        "config": {
            "game": config.game,
            "num_envs": num_envs,
            "rollout_length": steps,
            "network": config.network,
            "hidden_sizes": list(config.hidden_sizes),
            "num_epochs": config.num_epochs,
            "num_minibatches": config.num_minibatches,
            "conv_channels": config.conv_channels,
            "conv_blocks": config.conv_blocks,
            "compute_dtype": compute_dtype,
        },
        "device_kind": jax.devices()[0].device_kind,
        "devices": [str(d) for d in jax.devices()],
        "seconds": timings,
        "env_steps_per_update": env_steps,
        "training_steps_per_s": env_steps / timings["update"],
        "share_of_update": {
            name: timings[name] / timings["update"]
            for name in ("env", "forward", "learn")
            if name in timings
        },
        "learner_flops_per_update": learner_flops,
        "learner_flops_per_s": achieved,
        "peak_flops_per_s": peak,
        "learner_share_of_peak": achieved / peak if achieved and peak else None,
    }


def forward_flops(trainer, state) -> float:
    """FLOPs of one forward pass per position (XLA's cost analysis over the batch's
    observations); 0 where XLA gives none. Analysed as compiled for the CPU, whatever the
    device: on a GPU the convolutions are cuDNN calls, which XLA's analysis counts as 0 FLOPs."""
    cpu = jax.devices("cpu")[0]
    params, observation = jax.device_put((state.params, state.env_state.observation[:8]), cpu)
    compiled = jax.jit(trainer.network.apply).lower(params, observation).compile()
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):  # older jax: one dict per program
        analysis = analysis[0] if analysis else {}
    flops = (analysis or {}).get("flops", 0.0)
    return max(float(flops), 0.0) / observation.shape[0]


def peak_flops(device_kind: str, compute_dtype: str) -> float | None:
    """The chip's dense peak FLOP/s for the dtype, if PEAK_FLOPS knows the chip."""
    for part, peaks in PEAK_FLOPS.items():  # "H100 PCIe" before "H100"
        if part in device_kind:
            return peaks[compute_dtype]
    return None


def parse_variant(text: str) -> tuple[str, dict]:
    """ "gpu" or "gpu@bfloat16" -> (preset, changes); argparse's error for anything else."""
    name, _, dtype = text.partition("@")
    if name not in PRESETS:
        raise argparse.ArgumentTypeError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    if dtype and dtype not in COMPUTE_DTYPES:
        raise argparse.ArgumentTypeError(
            f"unknown compute dtype {dtype!r}; known: {', '.join(COMPUTE_DTYPES)}"
        )
    return name, ({"compute_dtype": dtype} if dtype else {})


def print_result(name: str, result: dict) -> None:
    seconds, update = result["seconds"], result["seconds"]["update"]
    print(f"{name}: {result['config']}")
    print("| piece | ms per update | share of the update |")
    print("|---|---:|---:|")
    for piece, value in seconds.items():
        print(f"| {piece} | {1000 * value:.1f} | {value / update:.0%} |")
    line = f"training throughput: {result['training_steps_per_s']:,.0f} env steps/s"
    if result["learner_flops_per_s"]:
        line += f"; learner {result['learner_flops_per_s'] / 1e12:.2f} TFLOP/s"
    if result["learner_share_of_peak"]:
        line += f" ({result['learner_share_of_peak']:.1%} of the chip's dense peak)"
    print(f"\n{line} ({result['env_steps_per_update']} steps per update)\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    parser.add_argument(
        "--variants",
        type=parse_variant,
        nargs="+",
        default=None,
        help="an A/B: PRESET or PRESET@COMPUTE_DTYPE each, measured in turn (replaces --preset)",
    )
    parser.add_argument("--num-envs", type=positive_int, default=None)
    parser.add_argument("--rollout-length", type=positive_int, default=None)
    parser.add_argument("--runs", type=positive_int, default=5)
    parser.add_argument(
        "--pieces",
        nargs="+",
        choices=PIECES,
        default=PIECES,
        help="what to time (learn and update always)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    out = Path(args.out or (RESULTS if args.variants is None else AB_RESULTS))
    try:
        check_writable(out)
    except ValueError as error:
        parser.error(f"--out: {error}")
    changes = {"num_envs": args.num_envs} if args.num_envs else {}
    if args.rollout_length:
        changes["rollout_length"] = args.rollout_length
    if args.variants is None:
        result = measure(preset(args.preset, **changes), args.runs, args.pieces)
        print_result(f"preset {args.preset}", result)
        write(out, result)
        return
    results = []
    for name, dtype in args.variants:
        label = name + (f"@{dtype['compute_dtype']}" if dtype else "")
        result = measure(preset(name, **{**changes, **dtype}), args.runs, args.pieces)
        print_result(label, result)
        results.append({"variant": label, **result})
        base = results[0]["training_steps_per_s"]
        for each in results:
            each["speedup_over_first"] = each["training_steps_per_s"] / base
        # After each variant, so that a time box that runs out keeps the variants measured.
        write(out, {"machine": machine(), "variants": results})
    for result in results:
        print(f"{result['variant']}: {result['speedup_over_first']:.2f}x {results[0]['variant']}")


def write(path, result: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
