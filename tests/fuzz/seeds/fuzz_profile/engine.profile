engine = b10715-cuda
fa = auto
