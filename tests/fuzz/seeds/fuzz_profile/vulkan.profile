# serve this model on the Vulkan build, first device
backend = vulkan
device = Vulkan0
ctx = 8192
fa = on
ctk = q8_0
ctv = q8_0
ngl = 99
n-cpu-moe = 4
ub = 256
threads = 8
env.GGML_VK_PREFER_HOST_MEMORY = 1
