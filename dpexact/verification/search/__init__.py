"""One search per output kind: selection score families, finite patterns, boxes (interval / continuous
/ mixed), the black-box statistical screen, the LDP channel and the (ε, δ) scope search.

Submodules are imported on use.
"""
