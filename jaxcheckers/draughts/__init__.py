"""International draughts (FMJD rules, 10×10) and its 8×8 variants, Brazilian and Russian."""
