"""stamps.py - what the stamp comparisons (banktimed-compare.py,
spmvlat-compare.py) share: reading a stamps file, plain or xz, and a
distribution as its mean and deciles."""
import lzma
import statistics


def open_text(path):
    return lzma.open(path, "rt") if path.endswith(".xz") else open(path)


def deciles(v):
    """'mean M  deciles min p10 ... max' of the numbers v (at least one)"""
    v = sorted(v)
    n = len(v)
    return "mean %6.0f  deciles %s" % (statistics.fmean(v), " ".join("%5d" % v[min(n - 1, q * n // 10)] for q in range(11)))
