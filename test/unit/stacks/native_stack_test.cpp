// Native stacks end to end: captured with libunwind (loaded privately), interned
// by StackTable into a chunk, read back with libprotobuf, symbolized from the
// ELF files with ElfSymbolizer, as the analyzer will.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "stacks/native_stack.h"
#include "record/stack_table.h"
#include "stack_test_chain.h"
#include "stack_test_support.h"

namespace stacks_test {

struct Capture {
  uint64_t frames[prof::kMaxNativeStackDepth] = {};
  uint32_t depth = 0;
  uint32_t skip = 0;
  uint32_t max_depth = prof::kMaxNativeStackDepth;
  // With a memo, the same stack is also walked without it, into `plain`.
  prof::NativeWalkMemo* memo = nullptr;
  uint64_t plain[prof::kMaxNativeStackDepth] = {};
  uint32_t plain_depth = 0;
};

STACKS_TEST_FRAME uint32_t level_three(Capture* capture) {
  capture->depth = prof::capture_native_stack(capture->frames, capture->max_depth, capture->skip, capture->memo);
  if (capture->memo != nullptr) {
    capture->plain_depth = prof::capture_native_stack(capture->plain, capture->max_depth, capture->skip);
  }
  STACKS_TEST_NO_TAIL_CALL();
  return capture->depth;
}

STACKS_TEST_FRAME uint32_t level_two(Capture* capture) {
  const uint32_t depth = level_three(capture);
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

STACKS_TEST_FRAME uint32_t level_one(Capture* capture) {
  const uint32_t depth = level_two(capture);
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

STACKS_TEST_FRAME uint32_t from_one_site(Capture* capture) {
  const uint32_t depth = level_one(capture);
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

// Two callers alike but for their names: the same frame size, so the chain
// below them runs at the same stack addresses from either, and only the
// return address into them (and their callers') tells them apart.
STACKS_TEST_FRAME uint32_t caller_a(Capture* capture) {
  const uint32_t depth = level_one(capture);
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

STACKS_TEST_FRAME uint32_t caller_b(Capture* capture) {
  const uint32_t depth = level_one(capture);
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

// One level more than caller_a: the same chain reached in one step more.
STACKS_TEST_FRAME uint32_t above_caller_a(Capture* capture) {
  const uint32_t depth = caller_a(capture);
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

// The library's callback back into this executable.
STACKS_TEST_FRAME uint32_t capture_from_library(void* arg) {
  const uint32_t depth = level_three(static_cast<Capture*>(arg));
  STACKS_TEST_NO_TAIL_CALL();
  return depth;
}

}  // namespace stacks_test

namespace {

using stacks_test::Capture;

void require_stacks() {
  std::string why;
  INFO("init_native_stacks: " << why);
  REQUIRE(prof::init_native_stacks(why));
}

std::string self_path() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  REQUIRE(length > 0);
  return std::string(path, static_cast<size_t>(length));
}

}  // namespace

TEST_CASE("a captured stack names the known call chain, leaf first, after symbolization") {
  require_stacks();
  Capture capture;
  REQUIRE(stacks_test::level_one(&capture) >= 4);  // three levels, then Catch2 and main

  prof::StackTable table;
  prof::ChunkEncoder encoder;
  const uint64_t stack_id = table.intern(capture.frames, capture.depth, encoder);
  REQUIRE(stack_id > 0);
  stacks_test::Definitions defs;
  defs.add(stacks_test::parse_framed(encoder.finish()));
  REQUIRE(defs.stacks.size() == 1);
  REQUIRE(static_cast<uint32_t>(defs.stacks.at(stack_id).frame_ids_size()) == capture.depth);

  prof::analyzer::ElfSymbolizer symbolizer;
  const auto frames = stacks_test::symbolize(defs, stack_id, symbolizer);
  const std::string exe = self_path();
  for (size_t i = 0; i < 3; ++i) CHECK(frames[i].module == exe);
  CHECK(frames[0].function == "stacks_test::level_three(stacks_test::Capture*)");
  CHECK(frames[1].function == "stacks_test::level_two(stacks_test::Capture*)");
  CHECK(frames[2].function == "stacks_test::level_one(stacks_test::Capture*)");
  // Further up: this test case's function, and main somewhere above it.
  bool found_main = false;
  for (size_t i = 3; i < frames.size(); ++i) found_main |= frames[i].function == "main";
  CHECK(found_main);

  // The executable's Module: the file's build id, a span holding the frames.
  const auto& module = defs.modules.at(defs.frames.at(defs.stacks.at(stack_id).frame_ids(0)).module_id());
  CHECK(module.path() == exe);
  CHECK(module.build_id().size() == 20);  // SHA-1, the linker's default on Debian
  CHECK(symbolizer.status(exe, module.build_id()) == prof::analyzer::ModuleStatus::ok);
  CHECK(module.load_address() <= capture.frames[0]);
  CHECK(capture.frames[0] < module.load_address() + module.size());
}

TEST_CASE("skip_frames drops the innermost callers and max_depth bounds the stack") {
  require_stacks();
  Capture full;
  Capture skipped;
  skipped.skip = 2;
  // Through one call site, so that the frames above level_one are the same.
  stacks_test::from_one_site(&full);
  stacks_test::from_one_site(&skipped);
  REQUIRE(full.depth >= 4);
  REQUIRE(skipped.depth == full.depth - 2);
  CHECK(skipped.frames[0] == full.frames[2]);  // the return address into level_one
  CHECK(skipped.frames[1] == full.frames[3]);

  uint64_t frames[prof::kMaxNativeStackDepth];
  CHECK(prof::capture_native_stack(frames, 2, 0) == 2);
  CHECK(prof::capture_native_stack(frames, 0, 0) == 0);
  CHECK(prof::capture_native_stack(nullptr, 8, 0) == 0);
  CHECK(prof::capture_native_stack(frames, 8, 1000) == 0);  // skips past the root
}

namespace {

// The walk with the memo against the walk without it, of the same stack
// (level_three makes both). They differ only in the return address into
// level_three, from two calls there: unless skipped, frame 0.
void check_walked_alike(const Capture& capture) {
  REQUIRE(capture.plain_depth > 0);
  REQUIRE(capture.depth == capture.plain_depth);
  const uint32_t first = capture.skip == 0 ? 1 : 0;
  CHECK(std::vector<uint64_t>(capture.frames + first, capture.frames + capture.depth) ==
        std::vector<uint64_t>(capture.plain + first, capture.plain + capture.plain_depth));
  CHECK_FALSE(capture.memo->busy);
}

void check_memo_walk(uint32_t (*site)(Capture*), prof::NativeWalkMemo& memo, uint32_t skip = 0,
                     uint32_t max_depth = prof::kMaxNativeStackDepth) {
  Capture capture;
  capture.skip = skip;
  capture.max_depth = max_depth;
  capture.memo = &memo;
  site(&capture);
  check_walked_alike(capture);
}

}  // namespace

TEST_CASE("a walk with the thread's memo finds the stack the walk without it finds") {
  require_stacks();
  prof::NativeWalkMemo memo;
  check_memo_walk(stacks_test::caller_a, memo);  // records the chain
  const uint32_t states = memo.count;
  CHECK(states > 4);
  check_memo_walk(stacks_test::caller_a, memo);  // replays it
  CHECK(memo.count == states);

  // The same stack addresses from another caller: the replay meets a return
  // address that differs and walks on from there.
  Capture from_a;
  from_a.memo = &memo;
  Capture from_b;
  from_b.memo = &memo;
  for (Capture* capture : {&from_a, &from_b}) {  // one frame: the same stack addresses below
    (capture == &from_a ? stacks_test::caller_a : stacks_test::caller_b)(capture);
  }
  check_walked_alike(from_a);
  check_walked_alike(from_b);
  REQUIRE(from_a.depth == from_b.depth);
  CHECK(from_a.frames[2] == from_b.frames[2]);  // into level_one
  CHECK(from_a.frames[3] != from_b.frames[3]);  // into caller_a, caller_b
  check_memo_walk(stacks_test::caller_b, memo);
  check_memo_walk(stacks_test::caller_a, memo);

  // A deeper stack, a shallower one, and each again.
  check_memo_walk(stacks_test::above_caller_a, memo);
  check_memo_walk(stacks_test::caller_a, memo);
  check_memo_walk(stacks_test::above_caller_a, memo);
  check_memo_walk(stacks_test::level_one, memo);
  check_memo_walk(stacks_test::level_one, memo);

  // Frames skipped and stacks cut short, replayed and after.
  check_memo_walk(stacks_test::caller_a, memo, 2);
  check_memo_walk(stacks_test::caller_a, memo, 2, 3);
  check_memo_walk(stacks_test::caller_a, memo, 0, 2);
  check_memo_walk(stacks_test::caller_a, memo, 0, 2);
  check_memo_walk(stacks_test::caller_a, memo);
  check_memo_walk(stacks_test::caller_b, memo, 5);
  check_memo_walk(stacks_test::caller_b, memo, 6, 1);
}

TEST_CASE("a walk that finds the memo busy (a signal handler's) leaves it alone") {
  require_stacks();
  prof::NativeWalkMemo memo;
  check_memo_walk(stacks_test::caller_a, memo);
  const uint32_t states = memo.count;
  const prof::NativeWalkMemo::Step first = memo.steps[0];
  memo.busy = true;
  Capture nested;
  nested.memo = &memo;
  stacks_test::caller_b(&nested);
  REQUIRE(nested.depth == nested.plain_depth);
  CHECK(std::vector<uint64_t>(nested.frames + 1, nested.frames + nested.depth) ==
        std::vector<uint64_t>(nested.plain + 1, nested.plain + nested.depth));
  CHECK(memo.busy);
  CHECK(memo.count == states);
  CHECK(memo.steps[0].return_address == first.return_address);
}

TEST_CASE("frames of a library dlopened after the first scan belong to that library's module") {
  require_stacks();
  prof::StackTable table;
  prof::ChunkEncoder encoder;
  stacks_test::Definitions defs;

  Capture before;
  stacks_test::level_one(&before);
  table.intern(before.frames, before.depth, encoder);
  defs.add(stacks_test::parse_framed(encoder.finish()));
  const uint64_t scans_before = table.modules().scans();
  REQUIRE(scans_before == 1);

  void* library = dlopen(STACKS_TEST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  INFO(dlerror());
  REQUIRE(library != nullptr);
  auto call = reinterpret_cast<decltype(&stacks_test_library_call)>(dlsym(library, "stacks_test_library_call"));
  REQUIRE(call != nullptr);
  Capture through_library;
  call(stacks_test::capture_from_library, &through_library);
  REQUIRE(through_library.depth >= 3);
  const uint64_t stack_id = table.intern(through_library.frames, through_library.depth, encoder);
  CHECK(table.modules().scans() == scans_before + 1);  // the loader's list changed: one rescan
  defs.add(stacks_test::parse_framed(encoder.finish()));

  prof::analyzer::ElfSymbolizer symbolizer;
  const auto frames = stacks_test::symbolize(defs, stack_id, symbolizer);
  CHECK(frames[0].function == "stacks_test::level_three(stacks_test::Capture*)");
  CHECK(frames[1].function == "stacks_test::capture_from_library(void*)");
  CHECK(frames[2].function == "stacks_test_library_call");
  CHECK(frames[2].module == STACKS_TEST_LIBRARY);
  CHECK(frames[0].module == self_path());

  // An address in no module (JIT code) gets module 0 and, with the loader's
  // list unchanged, no rescan.
  const uint64_t jit[] = {0x10, through_library.frames[0]};
  const uint64_t jit_stack = table.intern(jit, 2, encoder);
  CHECK(table.modules().scans() == scans_before + 1);
  const auto chunk = stacks_test::parse_framed(encoder.finish());
  REQUIRE(chunk.frames_size() == 1);  // only the new address
  CHECK(chunk.frames(0).address() == 0x10);
  CHECK(chunk.frames(0).module_id() == 0);
  CHECK(chunk.modules_size() == 0);
  REQUIRE(chunk.stacks_size() == 1);
  CHECK(chunk.stacks(0).id() == jit_stack);
  dlclose(library);
}

TEST_CASE("StackTable defines each frame, stack and module once, in the chunk that first uses it") {
  require_stacks();
  Capture a;
  stacks_test::level_one(&a);
  Capture b;
  stacks_test::level_two(&b);  // shares its leaf frames with `a`
  REQUIRE(a.depth > 3);

  prof::StackTable table;
  prof::ChunkEncoder encoder;
  const uint64_t id_a = table.intern(a.frames, a.depth, encoder);
  CHECK(table.intern(a.frames, a.depth, encoder) == id_a);
  const auto first = stacks_test::parse_framed(encoder.finish());
  CHECK(first.stacks_size() == 1);
  CHECK(static_cast<uint32_t>(first.frames_size()) <= a.depth);  // recursion may repeat an address
  CHECK(first.modules_size() >= 1);
  for (const auto& frame : first.frames()) CHECK(frame.id() > 0);

  const uint64_t id_b = table.intern(b.frames, b.depth, encoder);
  CHECK(id_b != id_a);
  CHECK(table.intern(a.frames, a.depth - 1, encoder) != id_a);  // a prefix is another stack
  const auto second = stacks_test::parse_framed(encoder.finish());
  CHECK(second.stacks_size() == 2);
  // level_three's and level_two's return addresses are shared, so are the
  // frames above level_one's caller: only the new call site is new.
  CHECK(second.frames_size() == 1);
  CHECK(second.modules_size() == 0);

  CHECK(table.intern(nullptr, 3, encoder) == 0);
  CHECK(table.intern(a.frames, 0, encoder) == 0);
  CHECK(encoder.empty());
}

// The writer scans the loader's list while app threads dlopen (CPython
// imports its extensions). Only the loader's own lock orders the two, which
// ThreadSanitizer cannot see: scripts/tsan_suppressions.txt (collect_module)
// says why the scan's read of the new name is no race. A path whose length
// is a multiple of 8 is the case its dl_iterate_phdr interceptor leaves
// reported (the name's terminating NUL), so the library gets such a name here.
TEST_CASE("a module scan finds a library another thread just dlopened, by its name") {
  char dir_template[] = "/tmp/prof-stacks-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  std::string path = dir + "/libprof_stacks_test_copy";
  while ((path.size() + 3) % 8 != 0) path += '_';
  path += ".so";
  REQUIRE(symlink(STACKS_TEST_LIBRARY, path.c_str()) == 0);

  std::atomic<bool> loaded{false};
  void* library = nullptr;
  std::thread loader([&] {
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    // Relaxed, as in the agent, where nothing but the loader's lock orders
    // an app thread's dlopen before the writer's scan.
    loaded.store(true, std::memory_order_relaxed);
  });
  while (!loaded.load(std::memory_order_relaxed)) std::this_thread::yield();
  prof::ModuleMap modules;
  modules.scan();
  bool found = false;
  for (const auto& entry : modules.entries()) found = found || entry.info.path == path;
  loader.join();
  INFO(path);
  REQUIRE(library != nullptr);
  CHECK(found);
  dlclose(library);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

// Also under ThreadSanitizer: the rules table is shared by all threads.
TEST_CASE("threads capture concurrently, each its own stack") {
  require_stacks();
  constexpr int kThreads = 8;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&bad] {
      Capture reference;
      stacks_test::level_one(&reference);
      for (int i = 0; i < 2000; ++i) {
        Capture again;
        stacks_test::level_one(&again);
        if (again.depth != reference.depth || again.frames[0] != reference.frames[0] ||
            again.frames[2] != reference.frames[2]) {
          bad.fetch_add(1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(bad.load() == 0);
}
