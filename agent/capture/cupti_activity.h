#pragma once
// CUPTI's activity buffers: handed to CUPTI on request, queued when CUPTI
// returns them full, and decoded into file records on the writer thread.
#include <cupti.h>

#include <pthread.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "capture/cupti_decoder.h"
#include "capture/cupti_library.h"
#include "record/activity_source.h"

namespace prof {

class CuptiActivity final : public ActivitySource {
 public:
  explicit CuptiActivity(const CuptiLibrary& cupti) : cupti_(cupti) {}

  // Registers the buffer callbacks; "" or why CUPTI refused them.
  std::string register_buffers();
  // Enables the activity kinds; returns those CUPTI refused, for one log line.
  std::string enable_kinds();
  // Outside capture windows: CUPTI records no GPU work at all.
  void disable_kinds();

  // CUPTI's flushes (cuptiActivityFlushAll) run on a thread of their own,
  // made at the first: never on the writer, which a signal handler may be
  // waiting for while the thread the signal interrupted holds CUPTI's locks
  // (HandlerWaits). That thread blocks every signal. Writer thread only.
  uint64_t request_delivery(bool forced) override;
  bool wait_for_delivery(uint64_t ticket, uint32_t timeout_us) override;
  void drain(ChunkSink& sink) override;
  uint64_t dropped() const override { return dropped_.load(std::memory_order_relaxed); }

  // Capture windows (PROF_CAPTURE=cudaProfilerApi): records whose start is
  // outside every window are not written. Without windows all are kept.
  void open_window(uint64_t start_ns) { decoder_.open_window(start_ns); }
  void close_window(uint64_t end_ns) { decoder_.close_window(end_ns); }
  void use_windows() { decoder_.use_windows(); }

  uint64_t unfinished() const override { return decoder_.unfinished(); }
  bool reports_launches() const override { return true; }
  void restate(ChunkSink& sink) override { decoder_.restate(sink); }

  // ---- CUPTI detached between windows (PROF_CUPTI_DETACH, cuda_capture.cpp) ----
  // While detached the writer calls nothing of CUPTI (any CUPTI call would
  // attach it again); cupti_mutex_ is held around every call the writer
  // and the delivery thread make and around detaching and attaching.
  struct Detacher {
    bool (*wanted)() = nullptr;   // CUPTI may go now (quiet, allowed, not yet asked)
    void (*request)() = nullptr;  // arranges for the next CUDA call to detach it
  };
  void set_detacher(Detacher detacher) { detacher_ = detacher; }
  // Between windows: hands over and decodes what CUPTI holds, then asks for
  // the detach.
  void between_windows(ChunkSink& sink) override;
  // An app thread, at a CUDA call's exit: runs `finalize` unless the writer
  // is inside CUPTI right now (a later call tries again). True once detached.
  bool try_detach(CUptiResult (*finalize)());
  // Under the capture's mode mutex: attaches CUPTI again through
  // `subscribe` (subscriber and timestamp callback), then registers the
  // buffer callbacks; "" or why CUPTI refused.
  std::string attach(const std::function<std::string()>& subscribe);
  bool attached() const { return attached_.load(std::memory_order_acquire); }

  // CUPTI's C callbacks, routed to the one instance.
  static void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer,
                                           size_t size, size_t valid_size);

 private:
  struct Buffer {
    uint8_t* data;
    size_t valid_size;
  };
  uint8_t* take_spare();  // nullptr when none is kept
  void keep_spare(uint8_t* buffer);
  // Calls cuptiActivityFlushAll under cupti_mutex_, unless detached.
  void flush(bool forced);
  // The delivery thread: flushes as asked, until the process ends.
  void deliver_requests();
  [[nodiscard]] bool start_delivery_thread();

  const CuptiLibrary& cupti_;
  bool registered_ = false;  // the buffer callbacks are CUPTI's
  // The writer's drain polls it (HandlerWaits): the delivery thread holds
  // it inside CUPTI, where a thread a signal interrupted may hold it up.
  std::mutex cupti_mutex_;
  std::atomic<bool> attached_{true};
  Detacher detacher_;
  std::atomic<uint64_t> dropped_{0};
  CuptiDecoder decoder_;

  // Guards completed_ only; never held while calling CUPTI, which calls
  // on_buffer_completed (and so takes it) from inside cuptiActivityFlushAll.
  std::mutex mutex_;
  std::vector<Buffer> completed_;
  std::vector<Buffer> draining_;  // writer's scratch

  // Decoded buffers, handed to CUPTI again (a leaf lock: nothing is called
  // while it is held).
  std::mutex spare_mutex_;
  std::vector<uint8_t*> spare_;

  // Delivery requests, as tickets (futex words): the writer, alone, takes
  // the next in delivery_requested_; the delivery thread publishes in
  // delivery_done_ the last one whose flush has returned. A flush serves
  // every request made before it began; it is forced when one of them was
  // (delivery_forced_up_to_, set before the ticket is published).
  std::atomic<uint32_t> delivery_requested_{0};
  std::atomic<uint32_t> delivery_done_{0};
  std::atomic<uint32_t> delivery_forced_up_to_{0};
  enum class DeliveryThread : uint8_t { none, running, unavailable };
  DeliveryThread delivery_thread_ = DeliveryThread::none;  // writer thread only
};

}  // namespace prof
