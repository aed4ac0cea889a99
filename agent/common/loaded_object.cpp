#include "common/loaded_object.h"

#include <link.h>

#include <cstdint>

namespace prof {
namespace {

struct ObjectOfAddress {
  uintptr_t address;
  const char* name = nullptr;
};

int find_object_of_address(dl_phdr_info* object, size_t, void* data) {
  auto* search = static_cast<ObjectOfAddress*>(data);
  for (int i = 0; i < object->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = object->dlpi_phdr[i];
    const uintptr_t start = object->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && search->address >= start && search->address - start < segment.p_memsz) {
      search->name = object->dlpi_name;
      return 1;
    }
  }
  return 0;
}

}  // namespace

const char* loaded_object_name(const void* address) {
  ObjectOfAddress search{reinterpret_cast<uintptr_t>(address)};
  dl_iterate_phdr(find_object_of_address, &search);
  return search.name;
}

}  // namespace prof
