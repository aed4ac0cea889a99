// `--step auto`: the period of an unannotated training loop.
#include <catch2/catch.hpp>

#include "AnalyzerTestSupport.h"
#include "TrainingCapture.h"
#include "window/AutoSteps.h"

using namespace prof::testing;
using namespace prof::analyzer;

TEST_CASE("placeholder for auto steps", "[auto]") { CHECK(true); }
