"""International draughts and its 8×8 variants (`jaxcheckers/draughts/`)."""
