"""A small PyTorch training loop, profiled two ways for scripts/gpu-check.sh:
  MODE=torch  python3 torch_side_by_side.py OUT   -> torch.profiler's table and trace
  MODE=plain  python3 torch_side_by_side.py OUT   -> no torch.profiler (run it under libprof)
Both runs do the same work: 12 steps, each under an NVTX range ProfilerStep#N.
"""
import os
import sys

import torch

out = sys.argv[1]
mode = os.environ.get("MODE", "plain")
torch.manual_seed(0)
device = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
data = torch.randn(256, 1024, device=device)
target = torch.randn(256, 1024, device=device)


def step(i):
    torch.cuda.nvtx.range_push("ProfilerStep#%d" % i)
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(data), target)
    loss.backward()
    optimizer.step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


if mode == "torch":
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch._C._profiler import _ExperimentalConfig
    # export_stacks writes nothing unless the profiler keeps stacks verbosely.
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], with_stack=True,
                 experimental_config=_ExperimentalConfig(verbose=True),
                 schedule=schedule(wait=1, warmup=1, active=10)) as prof:
        for i in range(12):
            step(i)
            prof.step()
    with open(os.path.join(out, "torch_table.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="cuda_time_total", row_limit=25))
    prof.export_chrome_trace(os.path.join(out, "torch_trace.json"))
    # Beside libprof's Python stacks of the same loop (scripts/gpu-check.sh).
    prof.export_stacks(os.path.join(out, "torch_stacks.txt"), "self_cuda_time_total")
else:
    for i in range(12):
        step(i)
print("done", mode)
