#pragma once
// One oneDNN operation ready to run: its primitive descriptor, where the problem's canonical
// tensors go, and for memory-bound backward passes the untimed forward ("prologue") that
// derives what the timed primitive reads. Shared by the backend and the primitive families.
#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <vector>

#include "harness/api/precision.hpp"

namespace lb::onednn {

using DataType = dnnl::memory::data_type;

// A primitive descriptor with the execution arguments and canonical (FP32, framework-layout)
// memory descriptors of the problem's tensors, in tensor_dims order.
struct Operation {
  dnnl::primitive_desc pd;
  // The forward pd a backward pd was made from (oneDNN's hint, a plain pointer in its C API),
  // kept alive with it.
  dnnl::primitive_desc forward_hint;
  std::vector<int> input_args;
  int output_arg = 0;
  std::vector<dnnl::memory::desc> canonical_inputs;
  dnnl::memory::desc canonical_output;
  // The output is written over the first input (one memory for both): an in-place forward.
  bool in_place = false;
  std::string algorithm;  // what was asked for: "auto", "direct", "winograd", "matmul", "relu"...
  // Arguments the timed primitive also reads or writes besides the inputs and the output
  // (statistics, max pooling's workspace, softmax's y, scale/shift gradients): one per buffer
  // set, like the inputs.
  std::vector<int> other_args;
  // The untimed forward that fills other_args from the inputs while the case is prepared (a
  // training step's forward computed them already), and every argument it takes; empty when
  // the timed primitive needs none. An input argument only the prologue reads (x of softmax's
  // and max pooling's backward) is still an input: the timed primitive is not given it.
  dnnl::primitive_desc prologue;
  std::vector<int> prologue_args;
  // Arguments that must have the precision's data type (the others are FP32 by oneDNN's
  // definition); empty: every input and the output.
  std::vector<int> typed_args;
};

// The memory descriptor of an argument: the timed primitive's, else the prologue's.
dnnl::memory::desc argument_desc(const Operation& op, int arg);

dnnl::primitive_attr make_attr();
// The forward a pass runs or takes as its hint: forward_inference for the fwd pass (a model in
// eval mode), forward_training for the training passes and the backward ones' hints.
dnnl::prop_kind forward_prop(Pass pass);
// Moves `pd` on to oneDNN's implementation number `impl` (0 = its first choice), or empties it
// when there is no such implementation.
void select_impl(dnnl::primitive_desc& pd, int impl);

}  // namespace lb::onednn
