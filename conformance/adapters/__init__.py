"""Maintained kit adapters for real engines nobody here wrote (peers): each runs the shipped vectors through
the kit's protocol (docs/conformance.md) and docs/peers.md shows what they give."""
