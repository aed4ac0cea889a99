#include "advise/findings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "advise/call_sites.h"
#include "advise/model_access.h"
#include "views/folded_stacks.h"
#include "views/tensor_memory.h"

namespace prof::analyzer {
namespace {

constexpr size_t kCauses = static_cast<size_t>(IdleCause::kCount);

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string pct(double part, double total) { return total > 0 ? fixed(100.0 * part / total, 1) + "%" : "-"; }

// The middle element (or the mean of the two middle ones) found in place
// by selection: sorting millions of launch times was a tenth of advise.
// `values` are left reordered.
uint64_t median_in_place(std::vector<uint64_t>& values) {
  if (values.empty()) return 0;
  const size_t n = values.size();
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (n % 2) return *middle;
  return (*std::max_element(values.begin(), middle) + *middle) / 2;
}
uint64_t median(std::vector<uint64_t> values) { return median_in_place(values); }

// "1 gap", "3 gaps"; `plural` where adding "s" is wrong ("copy" -> "copies").
std::string count_of(uint64_t n, const std::string& one, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? one : plural.empty() ? one + "s" : plural);
}

Metric metric(std::string key, double number) { return Metric{std::move(key), number, {}}; }
Metric text_metric(std::string key, std::string text) { return Metric{std::move(key), 0, std::move(text)}; }

class Builder {
 public:
  Builder(const FindingInput& in, AdviseWindow& w)
      : in_(in), w_(w), events_(*in.input->events), namer_(*in.input->namer) {}

  bool worth(uint64_t cost) const {
    return cost > 0 && static_cast<double>(cost) >= in_.input->min_cost_share * static_cast<double>(w_.gpu_span_ns);
  }

  void add(Finding f) {
    f.cost_pct = w_.gpu_span_ns ? 100.0 * static_cast<double>(f.cost_ns) / static_cast<double>(w_.gpu_span_ns) : 0;
    w_.findings.push_back(std::move(f));
  }

  std::string per_step(uint64_t count) const {
    if (in_.step_count == 0) return "";
    return " (" + fixed(static_cast<double>(count) / static_cast<double>(in_.step_count), 1) + " per step)";
  }

  // --- blocking calls inside steps: one finding per call site.
  void syncs() {
    struct Site {
      CallSites sites;
      uint64_t idle = 0, host = 0, calls = 0, bytes = 0;
      bool scalar_read = true;
      std::string api;
      explicit Site(const Run& e, const FrameNamer& n) : sites(e, n) {}
    };
    // A site is the API and the app's frames: stacks that differ only in
    // CUDA-library or agent frames at the leaf (a first call's lazy set-up)
    // are one site. Each distinct (API, stack) is named once.
    std::map<std::pair<NameId, std::vector<std::string>>, Site> by_site;
    std::map<std::pair<NameId, uint32_t>, std::vector<std::string>> frames_of_stack;
    auto site_key = [&](int64_t call) {
      const CpuEvent& e = events_.cpu_events[static_cast<size_t>(call)];
      auto [it, inserted] = frames_of_stack.try_emplace({e.name, e.stack});
      if (inserted) it->second = CallSites(events_, namer_).frames_of(call);
      return std::make_pair(e.name, it->second);
    };
    for (const IdlePiece& p : in_.pieces->pieces)
      if (p.cause == IdleCause::kSync && p.site >= 0) {
        Site& s = by_site.try_emplace(site_key(p.site), events_, namer_).first->second;
        s.idle += p.end_ns - p.start_ns;
        s.sites.add(p.site, p.end_ns - p.start_ns, false);
      }
    // Every call at those sites: host time blocked, copy sizes (summed per
    // (API, stack) before the pieces, api_call_totals).
    for (const auto& [key, totals] : *in_.api_calls) {
      auto it = by_site.find(site_key(totals.call));
      if (it == by_site.end()) continue;
      Site& s = it->second;
      s.api = events_.name(key.first);
      s.calls += totals.calls;
      s.host += totals.host_ns;
      s.sites.add_calls(totals.call, totals.calls);
      s.bytes += totals.copied_bytes;
      if (!totals.scalar_reads) s.scalar_read = false;
    }
    for (auto& [key, s] : by_site) {
      if (!worth(s.idle)) continue;
      Finding f;
      f.kind = "sync";
      f.cost_ns = s.idle;
      const bool copy = call_kind(s.api) == CallKind::kBlockingCopy;
      const std::string what = s.scalar_read ? "Blocking scalar read (" + s.api + " DtoH, " +
                                                   advise_bytes(s.bytes / std::max<uint64_t>(s.calls, 1)) + ")"
                               : copy ? "Blocking copy " + s.api
                                      : "Synchronization " + s.api;
      f.title = what + " inside the steps: the GPU sat idle " + advise_time(s.idle) + " after it";
      f.measured = count_of(s.calls, "call") + per_step(s.calls) + "; the host waited " +
                   advise_time(s.host) + " in them; each time the GPU had drained its queue and waited " +
                   advise_time(s.idle / std::max<uint64_t>(s.calls, 1)) +
                   " on average for the thread to come back and launch more";
      f.why = "A synchronizing call stops the host until the GPU has finished everything queued, so the host "
              "cannot queue the next work ahead: after every such call the GPU idles until new work arrives, and "
              "any host work after it (logging, Python, data loading) lands on the GPU's critical path.";
      f.action = s.scalar_read
                     ? "Keep the value on the GPU and read it every N steps, or copy it with cudaMemcpyAsync into "
                       "pinned memory and wait on an event only when it is needed (PyTorch: no .item(), .cpu(), "
                       "print(tensor) or Python `if` on a tensor inside the step)."
                 : copy ? "Use cudaMemcpyAsync from pinned memory and order the consumer with an event instead of "
                          "blocking the host (PyTorch: non_blocking=True with pinned tensors)."
                        : "Remove the synchronization from the step or move it to its end; time GPU work with CUDA "
                          "events, order streams with cudaStreamWaitEvent (PyTorch: no torch.cuda.synchronize() in "
                          "the loop).";
      f.where = s.sites.sorted();
      f.metrics = {metric("calls", static_cast<double>(s.calls)), metric("host_blocked_ns", static_cast<double>(s.host)),
                   metric("gpu_idle_ns", static_cast<double>(s.idle))};
      if (s.bytes) f.metrics.push_back(metric("bytes", static_cast<double>(s.bytes)));
      add(std::move(f));
    }
  }

  // --- launch-bound and host gaps.
  void host_bound() {
    // Launches: CPU time per launch, time to the next launch, kernel
    // durations, queue depth: measured before the idle pieces (launch_facts).
    const LaunchFacts& facts = *in_.launches;
    const uint64_t cpu = facts.cpu_ns, count = facts.count, shorter = facts.shorter, first = facts.first_ns,
                   last = facts.last_ns, kernel_sum = facts.kernel_sum_ns;
    const size_t interval_count = facts.interval_count;
    const uint64_t launch_cpu = facts.median_cpu_ns, median_kernel = facts.median_kernel_ns,
                   median_interval = facts.median_interval_ns;
    CallSites launch_sites(events_, namer_);
    for (const LaunchFacts::Site& site : facts.sites) launch_sites.add_calls(site.call, site.calls);
    CallSites gap_sites(events_, namer_);
    uint64_t launch_cost = 0, gap_cost = 0, gaps = 0, longest = 0;
    // Host-work pieces are grouped by the gap they sit in (same next work).
    std::map<std::pair<int64_t, uint32_t>, uint64_t> gap_host;  // (next work, device) -> host work
    for (const IdlePiece& p : in_.pieces->pieces)
      if (p.cause == IdleCause::kHostWork) gap_host[{p.next_work, in_.pieces->device(p)}] += p.end_ns - p.start_ns;
    std::map<std::pair<int64_t, uint32_t>, bool> counted;  // a gap counts once for its site
    for (const IdlePiece& p : in_.pieces->pieces) {
      const uint64_t d = p.end_ns - p.start_ns;
      if (p.cause == IdleCause::kLaunchOverhead) {
        launch_cost += std::min(d, launch_cpu);
        launch_sites.add(p.site, std::min(d, launch_cpu), false);
      } else if (p.cause == IdleCause::kHostWork) {
        if (gap_host[{p.next_work, in_.pieces->device(p)}] < kBetweenLaunchesNs) {
          launch_cost += d;
          launch_sites.add(p.site, d, false);
        } else {
          gap_cost += d;
          gap_sites.add(p.site, d, !std::exchange(counted[{p.next_work, in_.pieces->device(p)}], true));
        }
      }
    }
    for (const auto& [key, host] : gap_host)
      if (host >= kBetweenLaunchesNs) {
        ++gaps;
        longest = std::max(longest, host);
      }
    // A gap before most steps is the loop's own (data loading, CPU work);
    // a few scattered ones are the host stalling now and then.
    const bool recurring = in_.step_count == 0 || gaps * 4 >= in_.step_count;
    if (recurring && worth(gap_cost)) {
      Finding f;
      f.kind = "host_gap";
      f.cost_ns = gap_cost;
      f.title = "The GPU waits for the host: " + advise_time(gap_cost) +
                " with nothing queued while the thread was outside CUDA (data loading, CPU work)";
      f.measured = count_of(gaps, "gap") + per_step(gaps) + ", " + advise_time(gap_cost / gaps) +
                   " on average, the longest " + advise_time(longest) +
                   "; each ends when the thread makes the call below";
      f.why = "Nothing was queued: the GPU had finished all it was given while the host was busy elsewhere, so the "
              "step waits for data loading, preprocessing or Python, however fast the GPU is.";
      f.action = "Prepare the next batch while the GPU computes (PyTorch DataLoader with num_workers and "
                 "pin_memory, prefetching to the device on a side stream), move CPU work off the step, or queue the "
                 "GPU work before doing the CPU work.";
      f.where = gap_sites.sorted();
      f.metrics = {metric("gaps", static_cast<double>(gaps)), metric("gpu_idle_ns", static_cast<double>(gap_cost)),
                   metric("longest_gap_ns", static_cast<double>(longest))};
      add(std::move(f));
    }
    if (count == 0 || median_kernel >= median_interval || !worth(launch_cost)) return;
    const double mean_depth = facts.mean_queue_depth;
    const uint64_t depth_max = facts.max_queue_depth;
    const double seconds = last > first ? static_cast<double>(last - first) / 1e9 : 0;
    const double rate = seconds > 0 ? static_cast<double>(count - 1) / seconds : 0;
    Finding f;
    f.kind = "launch_bound";
    f.cost_ns = launch_cost;
    f.title = "Launch-bound: kernels finish faster than the host launches them; the GPU waited " +
              advise_time(launch_cost) + " on launches";
    f.measured = count_of(count, "launch", "launches") + " at " + fixed(rate, 0) + " per second; CPU time per launch " +
                 advise_time(launch_cpu) + " (median; mean " + advise_time(cpu / count) + "); median kernel " + advise_time(median_kernel) + " against " +
                 advise_time(median_interval) + " between launches; " +
                 pct(static_cast<double>(shorter), static_cast<double>(interval_count)) +
                 " of kernels end before the next launch begins; queue depth (launched, not started) " +
                 fixed(mean_depth, 1) + " on average, " + std::to_string(depth_max) + " at most";
    f.why = "Every launch costs CPU time; when kernels are shorter than that, the GPU runs one kernel, then waits "
            "for the next launch, and the queue never fills however fast the GPU is.";
    f.action = "Fuse small kernels (torch.compile, fused optimizers, custom kernels), capture the step in a CUDA "
               "graph (cudaStreamBeginCapture + cudaGraphLaunch; torch.cuda.graphs), give each kernel more work "
               "(larger batches), and cut Python or host overhead per launch.";
    f.where = launch_sites.sorted();
    f.metrics = {metric("launches", static_cast<double>(count)),
                 metric("launch_rate_per_s", std::round(rate)),
                 metric("cpu_per_launch_ns", static_cast<double>(cpu / count)),
                 metric("median_cpu_per_launch_ns", static_cast<double>(launch_cpu)),
                 metric("mean_kernel_ns", static_cast<double>(kernel_sum / count)),
                 metric("median_kernel_ns", static_cast<double>(median_kernel)),
                 metric("median_launch_interval_ns", static_cast<double>(median_interval)),
                 metric("short_kernel_pct",
                        interval_count == 0 ? 0 : std::round(1000.0 * static_cast<double>(shorter) /
                                                              static_cast<double>(interval_count)) / 10),
                 metric("mean_queue_depth", std::round(mean_depth * 100) / 100),
                 metric("max_queue_depth", static_cast<double>(depth_max)),
                 metric("gpu_idle_ns", static_cast<double>(launch_cost))};
    add(std::move(f));
  }

  // --- copies: pageable ones, and copies that run with no kernel beside them.
  void copies() {
    struct Group {
      uint64_t exposed = 0, count = 0, bytes = 0, gpu = 0, h2d = 0, d2h = 0;
    };
    Group pageable, plain;
    std::map<size_t, uint64_t> exposed;  // gpu activity -> copy wait charged to it
    for (const IdlePiece& p : in_.pieces->pieces)
      if (p.cause == IdleCause::kCopyWait && p.next_work >= 0) exposed[static_cast<size_t>(p.next_work)] += p.end_ns - p.start_ns;
    uint64_t pinned_bytes = 0, pinned_ns = 0;
    for (size_t i = 0; i < events_.gpu_activities.size(); ++i) {
      const GpuActivity& g = events_.gpu_activities[i];
      if (g.kind != GpuKind::kMemcpy) continue;
      const bool is_pageable = events_.name(g.name).find("Pageable") != std::string::npos;
      const bool host = is_host_to_device(events_, g) || is_device_to_host(events_, g);
      const uint64_t bytes = events_.transfer(g).bytes;
      // Small copies are all latency: only large ones show what pinned memory reaches.
      if (host && !is_pageable && bytes >= (1u << 20)) {
        pinned_bytes += bytes;
        pinned_ns += g.duration_ns();
      }
      Group& group = is_pageable ? pageable : plain;
      group.exposed += exposed[i];
      ++group.count;
      group.bytes += bytes;
      group.gpu += g.duration_ns();
      if (is_host_to_device(events_, g)) group.h2d += g.duration_ns();
      if (is_device_to_host(events_, g)) group.d2h += g.duration_ns();
    }
    // The copies with copy wait charged to them, in table order: the map's
    // own order, walked where a lookup per GPU record was half this finding.
    auto sites_of = [&](const Group& group) {
      CallSites sites(events_, namer_);
      for (const auto& [i, wait] : exposed) {
        const GpuActivity& g = events_.gpu_activities[i];
        if (g.kind == GpuKind::kMemcpy && wait > 0 &&
            (events_.name(g.name).find("Pageable") != std::string::npos) == (&group == &pageable))
          sites.add(g.launched_by, wait, true);
      }
      return sites.sorted();
    };
    auto gbps = [](uint64_t bytes, uint64_t ns) { return ns ? static_cast<double>(bytes) / static_cast<double>(ns) : 0.0; };
    const std::string pinned_note =
        pinned_ns ? "pinned copies of this run reach " + fixed(gbps(pinned_bytes, pinned_ns), 1) + " GB/s"
                  : "no pinned copy to compare with; PCIe 4.0 x16 moves about 25 GB/s pinned, 5.0 about 50";
    if (worth(pageable.exposed)) {
      Finding f;
      f.kind = "pageable_copy";
      f.cost_ns = pageable.exposed;
      f.title = "Copies from pageable host memory: " + advise_time(pageable.exposed) + " with no kernel running";
      f.measured = count_of(pageable.count, "copy", "copies") + per_step(pageable.count) + ", " +
                   advise_bytes(pageable.bytes) + " in " + advise_time(pageable.gpu) + " on the GPU: " +
                   fixed(gbps(pageable.bytes, pageable.gpu), 1) + " GB/s (" + pinned_note + "); HtoD " +
                   pct(static_cast<double>(pageable.h2d), static_cast<double>(w_.gpu_span_ns)) + " and DtoH " +
                   pct(static_cast<double>(pageable.d2h), static_cast<double>(w_.gpu_span_ns)) + " of the GPU span";
      f.why = "The driver stages pageable memory through a pinned bounce buffer: the copy is slower, blocks the "
              "host, and cannot run under kernels.";
      f.action = "Allocate the host buffers pinned (cudaHostAlloc / cudaMallocHost, or cudaHostRegister; PyTorch "
                 "pin_memory=True) and copy with cudaMemcpyAsync on a side stream (non_blocking=True).";
      f.where = sites_of(pageable);
      f.metrics = {metric("copies", static_cast<double>(pageable.count)), metric("bytes", static_cast<double>(pageable.bytes)),
                   metric("gpu_ns", static_cast<double>(pageable.gpu)),
                   metric("gbps", std::round(gbps(pageable.bytes, pageable.gpu) * 100) / 100),
                   metric("exposed_ns", static_cast<double>(pageable.exposed))};
      add(std::move(f));
    }
    if (worth(plain.exposed)) {
      Finding f;
      f.kind = "copy_not_overlapped";
      f.cost_ns = plain.exposed;
      f.title = "Copies that do not overlap compute: " + advise_time(plain.exposed) + " with no kernel running";
      f.measured = count_of(plain.count, "copy", "copies") + per_step(plain.count) + ", " + advise_bytes(plain.bytes) +
                   " in " + advise_time(plain.gpu) + " (" + fixed(gbps(plain.bytes, plain.gpu), 1) + " GB/s); HtoD " +
                   pct(static_cast<double>(plain.h2d), static_cast<double>(w_.gpu_span_ns)) + " and DtoH " +
                   pct(static_cast<double>(plain.d2h), static_cast<double>(w_.gpu_span_ns)) + " of the GPU span";
      f.why = "While a copy runs alone the SMs have nothing to do; copies from pinned memory on their own stream "
              "can run under kernels instead.";
      f.action = "Issue copies with cudaMemcpyAsync on a separate stream, double-buffer (copy batch N+1 while "
                 "computing batch N), and order with events rather than synchronizing.";
      f.where = sites_of(plain);
      f.metrics = {metric("copies", static_cast<double>(plain.count)), metric("bytes", static_cast<double>(plain.bytes)),
                   metric("gpu_ns", static_cast<double>(plain.gpu)), metric("exposed_ns", static_cast<double>(plain.exposed))};
      add(std::move(f));
    }
  }

  // --- cudaMalloc/cudaFree inside steps.
  void allocations() {
    CallSites sites(events_, namer_);
    uint64_t cost = 0;
    for (const IdlePiece& p : in_.pieces->pieces)
      if (p.cause == IdleCause::kAllocation) {
        cost += p.end_ns - p.start_ns;
        sites.add(p.site, p.end_ns - p.start_ns, false);
      }
    if (!worth(cost)) return;
    uint64_t allocs = 0, frees = 0, bytes = 0, host = 0;
    for (const StepUsage& s : w_.steps) {
      allocs += s.allocations;
      frees += s.frees;
      bytes += s.allocated_bytes;
    }
    // A runtime call and the driver call nested in it share a correlation
    // id: count the outer (longest) one.
    std::map<std::pair<uint32_t, uint32_t>, size_t> outer;
    for (size_t i = 0; i < events_.cpu_events.size(); ++i) {
      const CpuEvent& e = events_.cpu_events[i];
      if (e.kind != CpuEventKind::kApiCall || call_kind(events_.name(e.name)) != CallKind::kAllocation) continue;
      auto [it, inserted] = outer.try_emplace({e.process, e.correlation_id() ? e.correlation_id() : ~static_cast<uint32_t>(i)}, i);
      if (!inserted && e.duration_ns() > events_.cpu_events[it->second].duration_ns()) it->second = i;
    }
    for (const auto& [key, i] : outer) {
      host += events_.cpu_events[i].duration_ns();
      sites.add(static_cast<int64_t>(i), 0, true);
    }
    Finding f;
    f.kind = "allocation_churn";
    f.cost_ns = cost;
    f.title = "Allocation churn: cudaMalloc/cudaFree inside the steps left the GPU idle " + advise_time(cost);
    f.measured = count_of(allocs, "allocation") + per_step(allocs) + " and " + count_of(frees, "free") +
                 per_step(frees) + ", " + advise_bytes(bytes) + " allocated in all; the host spent " +
                 advise_time(host) + " in allocation calls";
    f.why = "cudaMalloc and cudaFree are slow host calls and cudaFree waits for the whole device, so the GPU drains "
            "its queue at every free and waits for the host to catch up.";
    f.action = "Allocate once before the loop and reuse the buffers, or use a caching or stream-ordered allocator "
               "(cudaMallocAsync / cudaFreeAsync; PyTorch's caching allocator, and no torch.cuda.empty_cache() in "
               "the loop).";
    f.where = sites.sorted();
    f.metrics = {metric("allocations", static_cast<double>(allocs)), metric("frees", static_cast<double>(frees)),
                 metric("allocated_bytes", static_cast<double>(bytes)), metric("host_ns", static_cast<double>(host)),
                 metric("gpu_idle_ns", static_cast<double>(cost))};
    add(std::move(f));
  }

  // --- the same kernel and launch configuration with very different durations.
  void kernel_variance() {
    for (const KernelSpread& k : *in_.kernel_spreads) {
      if (!worth(k.excess_ns)) continue;
      const KernelConfig& c = events_.kernel_configs[k.config];
      const std::string config = "grid [" + std::to_string(c.grid[0]) + ", " + std::to_string(c.grid[1]) + ", " +
                                 std::to_string(c.grid[2]) + "] block [" + std::to_string(c.block[0]) + ", " +
                                 std::to_string(c.block[1]) + ", " + std::to_string(c.block[2]) + "]";
      Finding f;
      f.kind = "kernel_variance";
      f.cost_ns = k.excess_ns;
      f.title = events_.name(k.name) + " takes from " + advise_time(k.shortest_ns) + " to " +
                advise_time(k.longest_ns) + " with the same launch configuration";
      f.measured = std::to_string(k.runs) + " runs with " + config + ", median " + advise_time(k.median_ns) + "; " +
                   std::to_string(k.slow) + " runs over 1.5x the median cost " + advise_time(k.excess_ns) +
                   " beyond it";
      f.why = "The same code on the same grid should take about the same time; slow outliers point at contention "
              "(other streams or processes on the GPU), clock throttling, or data-dependent work.";
      f.action = "Look at what ran beside the slow runs (profanalyze trace), check clocks and power limits, and "
                 "check data-dependent paths (sparsity, early exits, varying sequence lengths).";
      f.metrics = {metric("runs", static_cast<double>(k.runs)), metric("median_ns", static_cast<double>(k.median_ns)),
                   metric("min_ns", static_cast<double>(k.shortest_ns)),
                   metric("max_ns", static_cast<double>(k.longest_ns)),
                   metric("excess_ns", static_cast<double>(k.excess_ns))};
      add(std::move(f));
    }
  }

  // --- several ranks: the slowest, by how much, and where the difference is.
  void stragglers() {
    if (w_.ranks.size() < 2) return;
    auto slowest = std::max_element(w_.ranks.begin(), w_.ranks.end(), [](const RankSteps& a, const RankSteps& b) {
      return a.median_step_ns < b.median_step_ns;
    });
    auto fastest = std::min_element(w_.ranks.begin(), w_.ranks.end(), [](const RankSteps& a, const RankSteps& b) {
      return a.median_step_ns < b.median_step_ns;
    });
    const uint64_t diff = slowest->median_step_ns - fastest->median_step_ns;
    const uint64_t steps = std::min(slowest->steps, fastest->steps);
    const uint64_t cost = diff * steps;
    if (!worth(cost)) return;
    // Phases per step: kernels, copies, memsets and each idle cause; the one
    // whose median differs most between the two ranks.
    struct Phase {
      std::string name;
      uint64_t slow = 0, fast = 0;
    };
    std::vector<Phase> phases;
    auto phase_median = [&](uint32_t process, auto field) {
      std::vector<uint64_t> values;
      for (const StepUsage& s : w_.steps)
        if (s.process == process) values.push_back(field(s));
      return median(values);
    };
    auto add_phase = [&](std::string name, auto field) {
      phases.push_back({std::move(name), phase_median(slowest->process, field), phase_median(fastest->process, field)});
    };
    add_phase("kernels", [](const StepUsage& s) { return s.usage.kernel_ns; });
    add_phase("copies", [](const StepUsage& s) { return s.usage.copy_ns; });
    add_phase("memsets", [](const StepUsage& s) { return s.usage.memset_ns; });
    for (size_t c = 1; c < kCauses; ++c)  // copy waits are the copies above
      add_phase(std::string("idle: ") + idle_cause_key(static_cast<IdleCause>(c)),
                [c](const StepUsage& s) { return s.idle_by_cause[c]; });
    const Phase* differs = &phases[0];
    for (const Phase& p : phases)
      if (static_cast<int64_t>(p.slow - p.fast) > static_cast<int64_t>(differs->slow - differs->fast)) differs = &p;
    auto rank_name = [](const RankSteps& r) {
      return r.rank >= 0 ? "rank " + std::to_string(r.rank) : "process " + std::to_string(r.process);
    };
    Finding f;
    f.kind = "straggler";
    f.cost_ns = cost;
    f.title = rank_name(*slowest) + " is the slowest: " + advise_time(slowest->median_step_ns) + " per step against " +
              advise_time(fastest->median_step_ns) + " on " + rank_name(*fastest) + " (+" +
              pct(static_cast<double>(diff), static_cast<double>(fastest->median_step_ns)) + ")";
    std::string per_rank;
    for (const RankSteps& r : w_.ranks)
      per_rank += (per_rank.empty() ? "" : ", ") + rank_name(r) + " " + advise_time(r.median_step_ns);
    const int64_t phase_diff = static_cast<int64_t>(differs->slow) - static_cast<int64_t>(differs->fast);
    f.measured = "median step time: " + per_rank + "; the difference is mostly " + differs->name + ": " +
                 advise_time(differs->slow) + " per step against " + advise_time(differs->fast) +
                 "; over " + std::to_string(steps) + " steps the other ranks wait about " + advise_time(cost);
    f.why = "Collective operations (all-reduce, barriers) wait for the slowest rank every step, so every other rank "
            "idles for the difference.";
    f.action = differs->name == "kernels"
                   ? "Balance the work across ranks (uneven shards, sequence lengths or batch sizes), and check that "
                     "the slow rank's GPU is not throttled or shared."
                   : "Look at the slow rank's " + differs->name +
                         ": its data loading, host CPU (other processes, NUMA placement) and synchronization.";
    f.metrics = {metric("slowest_rank", slowest->rank >= 0 ? slowest->rank : static_cast<double>(slowest->process)),
                 metric("fastest_rank", fastest->rank >= 0 ? fastest->rank : static_cast<double>(fastest->process)),
                 metric("slowest_median_step_ns", static_cast<double>(slowest->median_step_ns)),
                 metric("fastest_median_step_ns", static_cast<double>(fastest->median_step_ns)),
                 metric("difference_ns", static_cast<double>(diff)), text_metric("phase", differs->name),
                 metric("phase_difference_ns", static_cast<double>(phase_diff))};
    add(std::move(f));
  }

  // --- device memory close to the device's capacity (a risk, no time cost).
  void memory() {
    for (const MemoryPeak& m : w_.memory) {
      if (m.capacity_bytes == 0 || m.peak_bytes * 10 < m.capacity_bytes * 9) continue;
      Finding f;
      f.kind = "memory_near_limit";
      f.title = "GPU " + std::to_string(m.device) + " memory peaks at " + advise_bytes(m.peak_bytes) + " of " +
                advise_bytes(m.capacity_bytes);
      f.measured = "device memory allocated through CUDA, at its highest: " +
                   pct(static_cast<double>(m.peak_bytes), static_cast<double>(m.capacity_bytes)) + " of the device";
      f.why = "Near the limit an allocation fails (out of memory) or a caching allocator starts freeing and "
              "retrying, which synchronizes the device.";
      f.action = "Reduce the batch size or activation memory (activation checkpointing, mixed precision), free "
                 "references early, or shard the model and optimizer state.";
      f.metrics = {metric("peak_bytes", static_cast<double>(m.peak_bytes)),
                   metric("capacity_bytes", static_cast<double>(m.capacity_bytes))};
      add(std::move(f));
    }
  }

  // --- the tensor memory peak (PyTorch's caching allocator, recorded by the
  // Python bootstrap): where it is and what held it (a fact, no time cost).
  void tensor_memory_peak() {
    for (const TensorMemoryDevice& d : *in_.tensor_memory) {
      if (d.peak.allocated == 0) continue;
      Finding f;
      f.kind = "tensor_memory_peak";
      const std::string where = d.device < 0 ? "CPU" : "GPU " + std::to_string(d.device);
      f.title = where + " tensor memory peaks at " + advise_bytes(d.peak.allocated) + " (pid " +
                std::to_string(d.pid) + ", " + advise_bytes(d.peak.reserved) + " reserved then)";
      f.measured = "tensors live at the peak, by the range that allocated them:";
      const size_t shown = std::min<size_t>(d.holders.size(), 5);
      for (size_t i = 0; i < shown; ++i) {
        const TensorMemoryHolder& h = d.holders[i];
        f.measured += std::string(i ? ";" : "") + " " + h.held_by + (h.line.empty() ? "" : " at " + h.line) + " " +
                      advise_bytes(h.bytes) + " in " + std::to_string(h.blocks) +
                      (h.blocks == 1 ? " tensor" : " tensors");
      }
      if (d.holders.size() > shown) f.measured += "; " + std::to_string(d.holders.size() - shown) + " more";
      f.why = "The peak, not the average, decides whether a batch fits: an allocation past it fails or makes "
              "the caching allocator free and retry, which synchronizes the device.";
      f.action = "Free or reuse the largest holders' tensors sooner (del, in-place ops, activation "
                 "checkpointing in the modules named), or lower the batch size; profanalyze report --view "
                 "memory shows the timeline.";
      f.metrics = {metric("peak_allocated_bytes", static_cast<double>(d.peak.allocated)),
                   metric("reserved_at_peak_bytes", static_cast<double>(d.peak.reserved)),
                   metric("device", static_cast<double>(d.device))};
      if (!d.holders.empty()) {
        f.metrics.push_back(text_metric("largest_holder", d.holders.front().held_by));
        if (!d.holders.front().line.empty()) f.metrics.push_back(text_metric("largest_holder_line", d.holders.front().line));
        f.metrics.push_back(metric("largest_holder_bytes", static_cast<double>(d.holders.front().bytes)));
      }
      add(std::move(f));
    }
  }

 private:
  const FindingInput& in_;
  AdviseWindow& w_;
  const Run& events_;
  const FrameNamer& namer_;
};

}  // namespace

std::string advise_time(uint64_t ns) {
  if (ns >= 1'000'000'000) return fixed(static_cast<double>(ns) / 1e9, 3) + " s";
  if (ns >= 1'000'000) return fixed(static_cast<double>(ns) / 1e6, 3) + " ms";
  if (ns >= 1'000) return fixed(static_cast<double>(ns) / 1e3, 1) + " us";
  return std::to_string(ns) + " ns";
}

std::string advise_bytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fixed(static_cast<double>(bytes) / (1 << 30), 2) + " GiB";
  if (bytes >= (uint64_t{1} << 20)) return fixed(static_cast<double>(bytes) / (1 << 20), 2) + " MiB";
  if (bytes >= (uint64_t{1} << 10)) return fixed(static_cast<double>(bytes) / (1 << 10), 1) + " KiB";
  return std::to_string(bytes) + " B";
}

ApiCallTotals api_call_totals(const Run& events) {
  // Each call's copy (the last of its memcpys in table order, as a map
  // assigned in that order kept), found by walking the calls and the copies
  // both in call order rather than a map lookup per call.
  std::vector<std::pair<uint32_t, uint32_t>> copies;  // (launching call, gpu activity)
  for (size_t i = 0; i < events.gpu_activities.size(); ++i) {
    const GpuActivity& g = events.gpu_activities[i];
    if (g.kind == GpuKind::kMemcpy && g.launched_by >= 0)
      copies.emplace_back(static_cast<uint32_t>(g.launched_by), static_cast<uint32_t>(i));
  }
  std::stable_sort(copies.begin(), copies.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ApiCallTotals out;
  size_t next_copy = 0;
  ApiCallTotals::mapped_type* last = nullptr;  // consecutive calls mostly share a site
  std::pair<NameId, uint32_t> last_key{};
  for (size_t i = 0; i < events.cpu_events.size(); ++i) {
    const CpuEvent& e = events.cpu_events[i];
    if (e.kind != CpuEventKind::kApiCall) continue;
    const std::pair<NameId, uint32_t> key{e.name, e.stack};
    if (last == nullptr || key != last_key) {
      auto [it, added] = out.try_emplace(key);
      if (added) it->second.call = static_cast<int64_t>(i);
      last = &it->second;
      last_key = key;
    }
    ApiCallTotals::mapped_type& t = *last;
    ++t.calls;
    t.host_ns += e.duration_ns();
    while (next_copy < copies.size() && copies[next_copy].first < i) ++next_copy;
    const GpuActivity* copy = nullptr;
    for (; next_copy < copies.size() && copies[next_copy].first == i; ++next_copy)
      copy = &events.gpu_activities[copies[next_copy].second];
    const bool read = copy != nullptr && is_device_to_host(events, *copy);
    if (copy != nullptr) t.copied_bytes += events.transfer(*copy).bytes;
    if (!read || events.transfer(*copy).bytes > 16) t.scalar_reads = false;
  }
  return out;
}

std::vector<KernelSpread> kernel_spreads(const Run& events) {
  // Each group's durations, counted first so that each list is allocated
  // once at its size (8 bytes a kernel: grown by doubling they held up to
  // twice their 25 MB at 10M events).
  using Group = std::pair<NameId, uint32_t>;  // (name, index into kernel_configs)
  std::map<Group, std::vector<uint64_t>> groups;
  {
    std::map<Group, size_t> counts;
    for (const GpuActivity& g : events.gpu_activities)
      if (g.kind == GpuKind::kKernel) ++counts[{g.name, g.details}];
    for (const auto& [group, n] : counts) groups[group].reserve(n);
  }
  for (const GpuActivity& g : events.gpu_activities)
    if (g.kind == GpuKind::kKernel) groups[{g.name, g.details}].push_back(g.duration_ns());
  std::vector<KernelSpread> out;
  for (auto& [key, durations] : groups) {
    if (durations.size() < 5) continue;
    KernelSpread k;
    k.name = key.first;
    k.config = key.second;
    k.runs = durations.size();
    k.longest_ns = *std::max_element(durations.begin(), durations.end());
    k.shortest_ns = *std::min_element(durations.begin(), durations.end());
    k.median_ns = median_in_place(durations);  // reorders them: the sums below do not mind
    if (k.median_ns == 0 || k.longest_ns < 2 * k.median_ns) continue;
    for (uint64_t d : durations)
      if (d > k.median_ns + k.median_ns / 2) {
        k.excess_ns += d - k.median_ns;
        ++k.slow;
      }
    out.push_back(k);
    durations = std::vector<uint64_t>();
  }
  return out;
}

LaunchFacts launch_facts(const Run& events) {
  LaunchFacts facts;
  // Per launching call, its (last) kernel: by call index, as a map of
  // millions of nodes cost 48 bytes a call and a cache miss each.
  constexpr uint32_t kNoKernel = UINT32_MAX;
  std::vector<uint32_t> kernel_of(events.cpu_events.size(), kNoKernel);
  for (size_t i = 0; i < events.gpu_activities.size(); ++i) {
    const GpuActivity& g = events.gpu_activities[i];
    if (g.kind == GpuKind::kKernel && g.launched_by >= 0) kernel_of[static_cast<size_t>(g.launched_by)] = static_cast<uint32_t>(i);
  }
  // The lists below hold one value per launch (millions), so they are
  // sized once, made one at a time and each freed when its median is
  // taken: the three side by side were 63 MB of advise's peak at 10M
  // events.
  using Thread = std::pair<uint32_t, uint32_t>;  // (process, tid)
  std::map<Thread, std::vector<uint32_t>> launches;  // per thread, start order
  size_t launch_count = 0;
  {
    std::map<Thread, size_t> counts;
    for (size_t call = 0; call < kernel_of.size(); ++call)
      if (kernel_of[call] != kNoKernel) ++counts[{events.cpu_events[call].process, events.cpu_events[call].tid}];
    for (const auto& [thread, n] : counts) {
      launches[thread].reserve(n);
      launch_count += n;
    }
  }
  // A run's launches come from a few call sites: counted per (API name,
  // stack), and the sites named later, on the command's thread (the namer
  // may read modules).
  std::map<std::pair<NameId, uint32_t>, size_t> site_index;
  for (size_t call = 0; call < kernel_of.size(); ++call) {
    if (kernel_of[call] == kNoKernel) continue;
    const CpuEvent& e = events.cpu_events[call];
    launches[{e.process, e.tid}].push_back(static_cast<uint32_t>(call));
    auto [site, added] = site_index.try_emplace({e.name, e.stack}, facts.sites.size());
    if (added) facts.sites.push_back({static_cast<int64_t>(call), 0});
    ++facts.sites[site->second].calls;
  }
  auto kernel_ns = [&](uint32_t call) { return events.gpu_activities[kernel_of[call]].duration_ns(); };
  auto to_next_ns = [&](uint32_t call, uint32_t next) {
    return events.cpu_events[next].start_ns - events.cpu_events[call].start_ns;
  };
  {
    std::vector<uint64_t> cpu_times;
    cpu_times.reserve(launch_count);
    for (auto& [thread, calls] : launches) {
      // A thread's launches come in end order, which for calls that do not
      // nest one another is start order: where the starts already rise,
      // strictly, the sort's answer is that order (no ties for its order to
      // decide), and the sort (a cache miss per comparison) is not made.
      auto later_start = [&](uint32_t a, uint32_t b) {
        return events.cpu_events[a].start_ns >= events.cpu_events[b].start_ns;
      };
      if (std::adjacent_find(calls.begin(), calls.end(), later_start) != calls.end())
        std::sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
          return events.cpu_events[a].start_ns < events.cpu_events[b].start_ns;
        });
      for (size_t i = 0; i < calls.size(); ++i) {
        const CpuEvent& e = events.cpu_events[calls[i]];
        const uint64_t k = kernel_ns(calls[i]);
        facts.cpu_ns += e.duration_ns();
        cpu_times.push_back(e.duration_ns());
        ++facts.count;
        facts.kernel_sum_ns += k;
        facts.first_ns = std::min(facts.first_ns, e.start_ns);
        facts.last_ns = std::max(facts.last_ns, e.start_ns);
        if (i + 1 < calls.size()) {
          ++facts.interval_count;
          if (k < to_next_ns(calls[i], calls[i + 1])) ++facts.shorter;
        }
      }
    }
    // A launch costs its usual (median) CPU time; longer stays inside one
    // (the thread preempted, a module loaded lazily) are stalls, not launch
    // throughput, and are left out of the launch-bound cost.
    facts.median_cpu_ns = median(std::move(cpu_times));
  }
  {
    std::vector<uint64_t> kernels;
    kernels.reserve(launch_count);
    for (const auto& [thread, calls] : launches)
      for (uint32_t call : calls) kernels.push_back(kernel_ns(call));
    facts.median_kernel_ns = median(std::move(kernels));
  }
  {
    std::vector<uint64_t> intervals;
    intervals.reserve(facts.interval_count);
    for (const auto& [thread, calls] : launches)
      for (size_t i = 0; i + 1 < calls.size(); ++i) intervals.push_back(to_next_ns(calls[i], calls[i + 1]));
    facts.median_interval_ns = median(std::move(intervals));
  }
  kernel_of = std::vector<uint32_t>();  // freed: assigning {} would keep its buffer
  launches.clear();
  return facts;
}

void add_findings(const FindingInput& in, AdviseWindow& w) {
  Builder b(in, w);
  b.syncs();
  b.host_bound();
  b.copies();
  b.allocations();
  b.kernel_variance();
  b.stragglers();
  b.memory();
  b.tensor_memory_peak();
  // By the time they cost; risks with no time cost last; ties by kind (stable output).
  std::stable_sort(w.findings.begin(), w.findings.end(), [](const Finding& a, const Finding& b) {
    return a.cost_ns != b.cost_ns ? a.cost_ns > b.cost_ns : a.kind < b.kind;
  });
}

}  // namespace prof::analyzer
