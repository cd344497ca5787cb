#pragma once
// TEST DATA: a backend that exists only in the tests, on a device kind of its own
// ("test_accelerator", two devices), showing that a backend the harness and the report have never
// heard of reaches every part of a run through its descriptor and one registry line. Its devices
// are the host: a run computes the double-precision reference and stores it in the point's
// precision, so what it times describes no hardware.
#include "harness/api/backend_descriptor.hpp"

namespace lb::test_accelerator {

const BackendDescriptor& descriptor();

}  // namespace lb::test_accelerator
