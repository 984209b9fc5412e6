kernel-4.traceg.xz
