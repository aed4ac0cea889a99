#pragma once
// Which loaded object (the executable or a library) holds an address.

namespace prof {

// The name the loader gave the object whose segments hold `address` (as
// dladdr's dli_fname), or nullptr. It walks the loaded objects' program
// headers: dladdr would also look for the nearest symbol, a scan of the
// library's dynamic symbols that every process under LD_PRELOAD paid at
// start-up (issue #30: a fifth of the agent's own samples in a process that
// records nothing). The name lives as long as the object stays loaded.
const char* loaded_object_name(const void* address);

}  // namespace prof
