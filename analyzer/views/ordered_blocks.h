#pragma once
// Blocks of work made in order on the calling thread, done on `workers`
// threads at once, and handed back on the calling thread in the order they
// were made: trace's items are merged into start order on one thread (cheap),
// formatted on every core (about half of its work), and written in order.
//
// At most `slots` blocks are in flight; a slot is filled again only once its
// last block was handed back, so memory stays at `slots` blocks however long
// the work. Each slot is touched by one thread at a time: the caller fills
// it, one worker does it, the caller takes it; the hand-overs go through
// the mutex (a worker takes a slot's block under it after the caller
// published it under it; the caller sees `done` under it after the worker
// set it under it), which orders the slot's writes before the next reads.
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace prof::analyzer {

// fill(Slot&) -> bool: makes the next block in the slot; false when there
//   is none (the slot is then left alone).
// work(Slot&, unsigned worker): does a block, on thread `worker` (0 ..
//   workers - 1), any number of them at once, each on its own slot.
// take(Slot&): the done blocks, in the order fill made them.
// None of them may throw: an exception ends the program (std::terminate),
// on a worker as on the calling thread, whose workers are not joined.
template <typename Slot, typename Fill, typename Work, typename Take>
void run_ordered_blocks(unsigned workers, size_t slots, Fill fill, Work work, Take take) {
  workers = workers < 1 ? 1 : workers;
  slots = slots < 1 ? 1 : slots;
  std::vector<Slot> ring(slots);
  std::vector<bool> done(slots, false);
  std::mutex mutex;
  std::condition_variable block_ready, block_done;
  size_t made = 0;        // blocks filled and published
  size_t started = 0;     // blocks a worker has taken up
  bool no_more = false;   // fill has said there is none
  auto worker = [&](unsigned id) {
    for (;;) {
      size_t block = 0;
      {
        std::unique_lock lock(mutex);
        block_ready.wait(lock, [&] { return started < made || no_more; });
        if (started == made) return;  // no_more, and nothing left to take up
        block = started++;
      }
      work(ring[block % slots], id);
      {
        std::lock_guard lock(mutex);
        done[block % slots] = true;
      }
      block_done.notify_one();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned id = 0; id < workers; ++id) threads.emplace_back(worker, id);

  size_t taken = 0;  // blocks handed back to take
  auto take_oldest = [&] {
    Slot& slot = ring[taken % slots];
    {
      std::unique_lock lock(mutex);
      block_done.wait(lock, [&] { return bool(done[taken % slots]); });
      done[taken % slots] = false;
    }
    take(slot);
    ++taken;
  };
  for (;;) {
    if (made - taken == slots) take_oldest();
    if (!fill(ring[made % slots])) break;
    {
      std::lock_guard lock(mutex);
      ++made;
    }
    block_ready.notify_one();
  }
  {
    std::lock_guard lock(mutex);
    no_more = true;
  }
  block_ready.notify_all();
  while (taken < made) take_oldest();
  for (std::thread& t : threads) t.join();
}

}  // namespace prof::analyzer
