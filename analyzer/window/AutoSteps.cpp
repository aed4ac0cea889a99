#include "window/AutoSteps.h"

namespace prof::analyzer {

AutoSteps detectSteps(const Run&) {
  AutoSteps out;
  out.message = "not implemented";
  return out;
}

}  // namespace prof::analyzer
