kernel-1.traceg
kernel-3.traceg
