#include "model/gpu_names.h"


namespace prof::analyzer {
namespace {

// Kineto's memoryKindString wording.
const char* memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable: return "Pageable";
    case MemoryKind::kPinned: return "Pinned";
    case MemoryKind::kDevice: return "Device";
    case MemoryKind::kArray: return "Array";
    case MemoryKind::kManaged: return "Managed";
    case MemoryKind::kDeviceStatic: return "Device Static";
    case MemoryKind::kManagedStatic: return "Managed Static";
    default: return "Unknown";
  }
}

}  // namespace

// Kineto's memcpyKindString wording.
const char* copy_kind_name(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice: return "HtoD";
    case CopyKind::kDeviceToHost: return "DtoH";
    case CopyKind::kHostToHost: return "HtoH";
    case CopyKind::kDeviceToDevice: return "DtoD";
    case CopyKind::kPeerToPeer: return "PtoP";
    case CopyKind::kDefault: return "Default";
    default: return "Unknown";
  }
}

std::string memcpy_name(const recorded::Memcpy& copy) {
  return std::string("Memcpy ") + copy_kind_name(copy.kind) + " (" + memory_kind_name(copy.src_kind) +
         " -> " + memory_kind_name(copy.dst_kind) + ")";
}

std::string memset_name(const recorded::Memset& set) {
  return std::string("Memset (") + memory_kind_name(set.memory_kind) + ")";
}

}  // namespace prof::analyzer
