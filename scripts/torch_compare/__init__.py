"""PyTorch's side of torch_layers.py: its timings files, the GPU and CPU measuring, and the
tables that set layerbench beside it."""
