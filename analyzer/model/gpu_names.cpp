#include "model/gpu_names.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace prof::analyzer {
namespace {

// Kineto's memoryKindString wording.
const char* memory_kind_name(prof::proto::MemoryKind kind) {
  switch (kind) {
    case prof::proto::PAGEABLE: return "Pageable";
    case prof::proto::PINNED: return "Pinned";
    case prof::proto::DEVICE: return "Device";
    case prof::proto::ARRAY: return "Array";
    case prof::proto::MANAGED: return "Managed";
    case prof::proto::DEVICE_STATIC: return "Device Static";
    case prof::proto::MANAGED_STATIC: return "Managed Static";
    default: return "Unknown";
  }
}

}  // namespace

// Kineto's memcpyKindString wording.
const char* copy_kind_name(prof::proto::CopyKind kind) {
  switch (kind) {
    case prof::proto::HOST_TO_DEVICE: return "HtoD";
    case prof::proto::DEVICE_TO_HOST: return "DtoH";
    case prof::proto::HOST_TO_HOST: return "HtoH";
    case prof::proto::DEVICE_TO_DEVICE: return "DtoD";
    case prof::proto::PEER_TO_PEER: return "PtoP";
    case prof::proto::DEFAULT: return "Default";
    default: return "Unknown";
  }
}

std::string demangle(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string memcpy_name(const prof::proto::Memcpy& copy) {
  return std::string("Memcpy ") + copy_kind_name(copy.kind()) + " (" + memory_kind_name(copy.src_kind()) +
         " -> " + memory_kind_name(copy.dst_kind()) + ")";
}

std::string memset_name(const prof::proto::Memset& set) {
  return std::string("Memset (") + memory_kind_name(set.memory_kind()) + ")";
}

}  // namespace prof::analyzer
