"""The memory-bound layers as PyTorch calls them, on the GPU and the CPU alike, and the record of
which call was timed where it is not the plain functional one."""
BATCH_NORM_EPS, LAYER_NORM_EPS = 1e-5, 1e-6  # nn.BatchNorm2d's, and ViT's LayerNorm(eps=1e-6)


def is_image(p):
    """Whether the point's data is an image (N, C, H, W) that PyTorch can hold channels_last:
    convolutions and the memory-bound layers between them, not attention's softmax."""
    if p.get("kind") == "conv":
        return True
    dims = (p.get("shape") or {}).get("dims") or []
    return len(dims) == 4 and p.get("kind") in ("batch_norm", "eltwise", "binary", "pool")


def memory_fn(torch, p, dtype, channels_last):
    """The point's memory-bound layer through PyTorch's functional op (forward), or the aten
    backward function torch.autograd calls for that op (bwd_data), on warm tensors."""
    import torch.nn.functional as F
    shape, kind, pass_ = p["shape"], p["kind"], p["pass"]
    dims = list(shape["dims"])
    fmt = torch.channels_last if channels_last else torch.contiguous_format

    def data(*size):
        return torch.randn(*size).to(dtype).contiguous(memory_format=fmt) if len(size) == 4 \
            else torch.randn(*size).to(dtype)

    def vector(n, low=0.0):  # statistics and scale/shift stay FP32, as in oneDNN
        return torch.rand(n) + low

    x = data(*dims)
    op = shape.get("op")
    if kind == "batch_norm":
        c = dims[1]
        mean, var, weight, bias = vector(c), vector(c, 0.5), vector(c, 0.5), vector(c)
        if pass_ == "fwd":
            return lambda: F.batch_norm(x, mean, var, weight, bias, False, 0.0, BATCH_NORM_EPS)
        if pass_ == "fwd_training":  # the batch's statistics; no running ones, as layerbench
            return lambda: F.batch_norm(x, None, None, weight, bias, True, 0.0, BATCH_NORM_EPS)
        stats = torch.ops.aten.native_batch_norm(x, weight, bias, None, None, True, 0.0,
                                                 BATCH_NORM_EPS)  # y, mean, 1 / std
        save_mean, save_invstd = stats[1], stats[2]
        dy = data(*dims)
        return lambda: torch.ops.aten.native_batch_norm_backward(
            dy, x, weight, None, None, save_mean, save_invstd, True, BATCH_NORM_EPS,
            [True, True, True])
    if kind == "layer_norm":
        d = dims[-1]
        weight, bias = vector(d, 0.5).to(dtype), vector(d).to(dtype)
        if pass_ == "fwd":
            return lambda: F.layer_norm(x, (d,), weight, bias, LAYER_NORM_EPS)
        stats = torch.ops.aten.native_layer_norm(x, (d,), weight, bias, LAYER_NORM_EPS)
        mean, rstd = stats[1], stats[2]
        dy = data(*dims)
        return lambda: torch.ops.aten.native_layer_norm_backward(
            dy, x, (d,), mean, rstd, weight, bias, [True, True, True])
    in_place = bool(shape.get("in_place"))  # as torchvision runs it: relu_, add_
    if kind == "eltwise":
        if pass_ == "fwd":
            if op == "relu":
                return (lambda: torch.relu_(x)) if in_place else (lambda: torch.relu(x))
            return lambda: F.gelu(x)
        dy = data(*dims)
        if op == "relu":
            return lambda: torch.ops.aten.threshold_backward(dy, x, 0)
        return lambda: torch.ops.aten.gelu_backward(dy, x)
    if kind == "binary":  # forward and backward are the same add, as in layerbench
        y = data(*([1] + dims[1:] if shape.get("broadcast") else dims))
        if in_place:
            return lambda: x.add_(y)
        out = torch.empty_like(x)
        return lambda: torch.add(x, y, out=out)
    if kind == "pool":
        window, stride, pad = shape["window"], shape["stride"], shape["pad"]
        if op == "max_pool":
            if pass_ == "fwd":
                def max_pool():  # layerbench's forward writes no indices: ask for none
                    with torch.inference_mode():
                        return F.max_pool2d(x, window, stride, pad)
                return max_pool
            pooled = F.max_pool2d(x, window, stride, pad, return_indices=True)  # y, argmax
            indices = pooled[1]
            dy = torch.randn(pooled[0].shape).to(dtype).contiguous(memory_format=fmt)
            return lambda: torch.ops.aten.max_pool2d_with_indices_backward(
                dy, x, [window] * 2, [stride] * 2, [pad] * 2, [1, 1], False, indices)
        if pass_ == "fwd":
            return lambda: F.avg_pool2d(x, window, stride, pad, count_include_pad=False)
        y = F.avg_pool2d(x, window, stride, pad, count_include_pad=False)
        dy = torch.randn(y.shape).to(dtype).contiguous(memory_format=fmt)
        return lambda: torch.ops.aten.avg_pool2d_backward(
            dy, x, [window] * 2, [stride] * 2, [pad] * 2, False, False, None)
    if kind == "softmax":
        if pass_ == "fwd":
            return lambda: torch.softmax(x, -1)
        y, dy = torch.softmax(x, -1), data(*dims)
        return lambda: torch.ops.aten._softmax_backward_data(dy, y, -1, dtype)
    raise RuntimeError(f"no PyTorch op for kind {kind!r}")


# What each pass of a max pool times in PyTorch, written beside its time. layerbench's forward
# (oneDNN forward_inference, cudnnPoolingForward) writes no argmax. PyTorch 2.15's CPU profile
# shows aten::max_pool2d_with_indices under F.max_pool2d even in inference mode, so say so.
MAX_POOL_CALLS = {
    "fwd": "F.max_pool2d under torch.inference_mode, no indices asked for; PyTorch may still "
           "write int64 indices (on the CPU it ran aten::max_pool2d_with_indices)",
    "bwd_data": "aten.max_pool2d_with_indices_backward, reading int64 indices from a forward "
                "outside the timed region (layerbench's backward takes none)"}


CPU_KERNELS = "not available on the CPU: the profiler names no kernels there"


def torch_call(p):
    """The PyTorch call timed for a point where it is not the op's plain functional one."""
    return MAX_POOL_CALLS.get(p["pass"]) if p["shape"].get("op") == "max_pool" else None
