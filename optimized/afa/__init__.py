"""The optimized AFA engine (spec/003; issue 16): Algorithm 1 over typed arrays in Numba."""
