#pragma once
// What the dynamic loader's messages (dlerror) say about which file failed. Pure functions.
#include <string>

namespace lb::doctor {

// The file a loader message is about: glibc begins a failed load's message with the path of the
// file it could not use ("/opt/x/libcudnn.so.9: file too short", "/opt/x/libcublasLt.so.13:
// version `libcublasLt.so.13' not found (required by ...)"); empty when the message begins with
// no path (a name not found: "libcudnn.so.9: cannot open shared object file: ...").
std::string file_in_loader_message(const std::string& message);

// The symbol of "...: undefined symbol: cudnnFoo" (a library without the functions another
// needs, e.g. one with another library's SONAME or an older release); empty when none.
std::string undefined_symbol_in_loader_message(const std::string& message);

}  // namespace lb::doctor
