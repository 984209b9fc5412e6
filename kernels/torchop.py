#!/usr/bin/env python3
"""torchop.py OP - one PyTorch operator on the GPU, launched once: the suite's
kernels as a library writes them (PyTorch's own CUDA kernels, unmodified; cuBLAS
for mm). Each run launches exactly one kernel, as every suite program does
(kernels/experiments.txt): the inputs are made on the CPU and copied over
(copies launch no kernel), outputs are allocated empty, and the result is
checked on the CPU after the one launch. Prints "torchop OP: PASSED" on stderr
(what kernels/capture-all.sh looks for) or exits 1.

usage: torchop.py OP       (torchop.py --list: the operators)

Sizes are chosen so that each grid fills the 132 SMs of the H200 several times
over while its trace stays a few hundred KiB."""
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False  # fp32 mm stays fp32 (and cp.async, not TMA)
torch.manual_seed(0)
GEN = torch.Generator().manual_seed(1)


def cpu_randn(*shape):
    return torch.randn(*shape, generator=GEN)


def gpu(t):
    return t.to('cuda')  # a host-to-device copy: no kernel


def op_add():
    """vectorized_elementwise_kernel: c = a + b, 2^20 floats each (16-byte lanes)."""
    a, b = cpu_randn(1 << 20), cpu_randn(1 << 20)
    ga, gb = gpu(a), gpu(b)
    gc = torch.empty_like(ga)
    torch.add(ga, gb, out=gc)
    return gc, a + b


def op_mul_inplace():
    """x.mul_(3): reads and writes the same 2^20 floats."""
    x = cpu_randn(1 << 20)
    gx = gpu(x)
    gx.mul_(3.0)
    return gx, x * 3.0


def op_to_half():
    """x.half(): 4-byte reads, 2-byte writes, 2^20 elements."""
    x = cpu_randn(1 << 20)
    gy = gpu(x).half()
    return gy, x.half()  # compared on the CPU: .float() here would launch a second kernel


def op_softmax():
    """torch.softmax over rows of 1024 x 1024 floats."""
    x = cpu_randn(1024, 1024)
    gy = torch.softmax(gpu(x), dim=1)
    return gy, torch.softmax(x, dim=1)


def op_layer_norm():
    """layer_norm over rows of 512 x 1024 floats, with weight and bias."""
    x, w, b = cpu_randn(512, 1024), cpu_randn(1024), cpu_randn(1024)
    gy = torch.nn.functional.layer_norm(gpu(x), (1024,), gpu(w), gpu(b))
    return gy, torch.nn.functional.layer_norm(x, (1024,), w, b)


def op_sum_rows():
    """x.sum(dim=1) of 2048 x 1024 floats: one sum per row."""
    x = cpu_randn(2048, 1024)
    gy = gpu(x).sum(dim=1)
    return gy, x.sum(dim=1)


def op_sum_cols():
    """x.sum(dim=0) of 2048 x 1024 floats: one sum per column."""
    x = cpu_randn(2048, 1024)
    gy = gpu(x).sum(dim=0)
    return gy, x.sum(dim=0)


def op_index_select():
    """rows of a 16384 x 256 float table picked by 4096 random indices (an embedding lookup)."""
    table = cpu_randn(16384, 256)
    idx = torch.randint(0, 16384, (4096,), generator=GEN)
    gy = torch.index_select(gpu(table), 0, gpu(idx))
    return gy, torch.index_select(table, 0, idx)


def op_index_add():
    """out.index_add_(0, idx, src): 1024 x 256 float rows added into 256 rows (float atomics)."""
    out = torch.zeros(256, 256)
    src = cpu_randn(1024, 256)
    idx = torch.randint(0, 256, (1024,), generator=GEN)
    gout = gpu(out)  # zeros made on the CPU: torch.zeros on the GPU would launch a fill
    gout.index_add_(0, gpu(idx), gpu(src))
    return gout, out.index_add_(0, idx, src)


def op_transpose():
    """x.t().contiguous() of 1024 x 512 floats: strided reads, contiguous writes."""
    x = cpu_randn(1024, 512)
    gy = gpu(x).t().contiguous()
    return gy, x.t().contiguous()


def op_mm():
    """torch.mm of 512 x 64 by 64 x 512 floats (cuBLAS, fp32)."""
    a, b = cpu_randn(512, 64), cpu_randn(64, 512)
    gy = torch.mm(gpu(a), gpu(b))
    return gy, torch.mm(a, b)


def op_add_bf16():
    """vectorized_elementwise_kernel: c = a + b in bfloat16, 2^20 elements (2-byte lanes, 8 a thread)."""
    a, b = cpu_randn(1 << 20).bfloat16(), cpu_randn(1 << 20).bfloat16()
    gc = torch.empty(1 << 20, dtype=torch.bfloat16, device='cuda')
    torch.add(gpu(a), gpu(b), out=gc)
    return gc, a + b


def op_where():
    """torch.where(mask, x, y): a bool mask (1-byte lanes) choosing between 2^18 floats."""
    x, y = cpu_randn(1 << 18), cpu_randn(1 << 18)
    m = torch.rand(1 << 18, generator=GEN) < 0.5
    gy = torch.where(gpu(m), gpu(x), gpu(y))  # tensors, not a scalar: a scalar is filled by a kernel
    return gy, torch.where(m, x, y)


def op_gather():
    """x.gather(1, idx): 512 x 256 floats, each element picked from a random column of its row."""
    x = cpu_randn(512, 256)
    idx = torch.randint(0, 256, (512, 256), generator=GEN)
    gy = torch.gather(gpu(x), 1, gpu(idx))
    return gy, torch.gather(x, 1, idx)


def op_cumsum():
    """x.cumsum(1) of 256 x 512 floats: a scan along each row."""
    x = cpu_randn(256, 512)
    gy = gpu(x).cumsum(1)
    return gy, x.cumsum(1)


def op_argmax():
    """x.argmax(1) of 2048 x 1024 floats: a reduction that keeps an index."""
    x = cpu_randn(2048, 1024)
    gy = gpu(x).argmax(1)
    return gy, x.argmax(1)


def op_cat():
    """torch.cat of two 1024 x 512 float tensors along dim 1."""
    a, b = cpu_randn(1024, 512), cpu_randn(1024, 512)
    gy = torch.cat((gpu(a), gpu(b)), 1)
    return gy, torch.cat((a, b), 1)


OPS = {name[3:]: f for name, f in sorted(globals().items()) if name.startswith('op_')}


def main():
    if len(sys.argv) == 2 and sys.argv[1] == '--list':
        for name, f in OPS.items():
            print("%-14s %s" % (name, f.__doc__))
        return 0
    if len(sys.argv) != 2 or sys.argv[1] not in OPS:
        print("usage: torchop.py OP (one of: %s)" % ' '.join(OPS), file=sys.stderr)
        return 2
    name = sys.argv[1]
    if not torch.cuda.is_available():
        print("torchop %s: no CUDA device" % name, file=sys.stderr)
        return 2
    got, want = OPS[name]()
    torch.cuda.synchronize()
    got = got.cpu().float()
    want = want.float()
    tol = 1e-2 if name in ('mm', 'add_bf16', 'cumsum') else 1e-4
    if got.shape != want.shape or not torch.allclose(got, want, rtol=tol, atol=tol):
        err = (got - want).abs().max().item() if got.shape == want.shape else float('nan')
        print("torchop %s: FAILED (max abs difference %g)" % (name, err), file=sys.stderr)
        return 1
    # on stderr, as the suite's programs: ncu's CSV is stdout
    print("torchop %s: PASSED" % name, file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
