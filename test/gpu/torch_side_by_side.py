"""A real PyTorch training loop, profiled two ways by scripts/gpu-check.sh
and compared by test/gpu/torch_compare.py (issue 26's side-by-side check):

  torch_side_by_side.py --out DIR --profiler torch   torch.profiler around the loop
  torch_side_by_side.py --out DIR                    no profiler: run it under libprof

An MLP and a small conv net trained together by one AdamW (so one
optimizer.step() per step, the step libprof's bootstrap sees), batches from
a DataLoader, STEPS steps. The training code is the same in every mode;
without --profiler the program calls no profiler and marks nothing: it is
the unmodified program libprof must see into.

Each mode writes DIR/program_<MODE>.json, the program's own account of its
run (steps, loss, torch.cuda.max_memory_allocated()). --profiler torch also
writes DIR/torch_ops.json: key_averages() (per operator and per operator and
input shapes), its step count and the profiler's own memory peak, read by
torch_compare.py; and torch's table and Kineto trace beside it.
--profiler torch-stacks profiles with Python stacks for export_stacks
(issue 12's stacks comparison).

--device cpu runs the same loop on a CPU torch (a dry run of this program
and of the comparer's input where no GPU is lent).
"""
import argparse
import json
import os
import sys

import torch

BATCH = 64


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 512)
        self.act = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(512, 10)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1))
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def data_loader(steps):
    """One epoch of exactly `steps` batches, shuffled by a seeded generator so
    that both runs see the same batches in the same order."""
    generator = torch.Generator().manual_seed(1)
    count = steps * BATCH
    dataset = torch.utils.data.TensorDataset(
        torch.randn(count, 3, 32, 32, generator=generator), torch.randn(count, 256, generator=generator),
        torch.randint(0, 10, (count,), generator=generator))
    return torch.utils.data.DataLoader(dataset, batch_size=BATCH, shuffle=True, drop_last=True,
                                       generator=torch.Generator().manual_seed(2))


def train(device, steps, after_step):
    """The loop every mode runs. loss.item() comes before optimizer.step():
    under libprof a step ends inside optimizer.step() (torch's step post
    hook) and under torch.profiler at prof.step() right after it, so nothing
    of a step may run between the two."""
    torch.manual_seed(0)
    mlp, convnet = MLP().to(device), ConvNet().to(device)
    optimizer = torch.optim.AdamW(list(mlp.parameters()) + list(convnet.parameters()), lr=1e-3)
    losses = []
    for images, vectors, labels in data_loader(steps):
        images, vectors, labels = images.to(device), vectors.to(device), labels.to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = (torch.nn.functional.cross_entropy(mlp(vectors), labels) +
                torch.nn.functional.cross_entropy(convnet(images), labels))
        loss.backward()
        losses.append(loss.item())
        optimizer.step()
        after_step()
    return losses


def program_account(device, losses):
    cuda = device == "cuda"
    if cuda:
        torch.cuda.synchronize()
    return {
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name() if cuda else "cpu",
        "steps": len(losses),
        "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        # The ground truth for the peak: the caching allocator's own count.
        "max_memory_allocated": torch.cuda.max_memory_allocated() if cuda else None,
    }


def attribute(event, *names):
    """The first of `names` event has: torch 2.x renamed cuda_* to device_*."""
    for name in names:
        value = getattr(event, name, None)
        if value is not None:
            return value
    return 0


def key_average_rows(averages):
    """torch's key_averages() rows, the fields torch_compare.py reads (times
    in microseconds as torch keeps them, memory in bytes)."""
    rows = []
    for event in averages:
        device_type = str(getattr(event, "device_type", "DeviceType.CPU"))
        rows.append({
            "name": event.key,
            "device": "cuda" if device_type.endswith("CUDA") else "cpu",
            "count": event.count,
            "self_cpu_us": event.self_cpu_time_total,
            "cpu_total_us": event.cpu_time_total,
            "self_cuda_us": attribute(event, "self_device_time_total", "self_cuda_time_total"),
            "cuda_total_us": attribute(event, "device_time_total", "cuda_time_total"),
            "self_cuda_mem": attribute(event, "self_device_memory_usage", "self_cuda_memory_usage"),
            "cuda_mem": attribute(event, "device_memory_usage", "cuda_memory_usage"),
            "input_shapes": str(event.input_shapes) if event.input_shapes else "",
            # torch >= 2.4: a record_function's span over its GPU work is a row of
            # its own, device CUDA, beside the CPU row of the same name.
            "user_annotation": bool(getattr(event, "is_user_annotation", False)),
        })
    return rows


def profiler_memory_peak(trace_path):
    """The highest 'Total Allocated' of the trace's [memory] events: the peak
    torch.profiler's profile_memory saw inside its active steps."""
    with open(trace_path) as f:
        trace = json.load(f)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace  # torch 1.13: a bare list
    peaks = [event["args"]["Total Allocated"] for event in events
             if event.get("name") == "[memory]" and "Total Allocated" in event.get("args", {})
             and event["args"].get("Device Type") == 1]  # 1: CUDA (c10::DeviceType)
    return max(peaks) if peaks else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--profiler", choices=["none", "torch", "torch-stacks"], default="none")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--wait", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=1)
    args = parser.parse_args()
    active = args.steps - args.wait - args.warmup
    if active < 1:
        parser.error("--steps must leave at least one active step after --wait and --warmup")

    if args.profiler == "none":
        losses = train(args.device, args.steps, lambda: None)
    else:
        from torch.profiler import ProfilerActivity, profile, schedule
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if args.device == "cuda" else [])
        options = dict(record_shapes=True, profile_memory=True, with_modules=True)
        if args.profiler == "torch-stacks":
            from torch._C._profiler import _ExperimentalConfig
            # export_stacks writes nothing unless the profiler keeps stacks verbosely.
            options = dict(with_stack=True, experimental_config=_ExperimentalConfig(verbose=True))
        with profile(activities=activities, schedule=schedule(wait=args.wait, warmup=args.warmup, active=active,
                                                              repeat=1), **options) as prof:
            losses = train(args.device, args.steps, prof.step)
        metric = "self_cuda_time_total" if args.device == "cuda" else "self_cpu_time_total"
        if args.profiler == "torch-stacks":
            prof.export_stacks(os.path.join(args.out, "torch_stacks.txt"), metric)
        else:
            averages = prof.key_averages()
            with open(os.path.join(args.out, "torch_table.txt"), "w") as f:
                f.write(averages.table(sort_by=metric.replace("self_", ""), row_limit=-1))
            trace_path = os.path.join(args.out, "torch_trace.json")
            prof.export_chrome_trace(trace_path)
            steps = [row for row in key_average_rows(averages) if row["name"].startswith("ProfilerStep")]
            with open(os.path.join(args.out, "torch_ops.json"), "w") as f:
                json.dump({"torch": torch.__version__, "device": args.device,
                           "schedule": {"wait": args.wait, "warmup": args.warmup, "active": active},
                           "steps": sum(row["count"] for row in steps),
                           "profiler_peak_allocated": profiler_memory_peak(trace_path),
                           "rows": key_average_rows(averages),
                           "shape_rows": key_average_rows(prof.key_averages(group_by_input_shape=True))},
                          f, indent=1)
    account = program_account(args.device, losses)
    with open(os.path.join(args.out, "program_%s.json" % args.profiler.replace("-", "_")), "w") as f:
        json.dump(account, f, indent=1)
    print("done", args.profiler, "steps", account["steps"], "last loss %.6f" % account["last_loss"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
