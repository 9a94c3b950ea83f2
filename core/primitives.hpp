// The non-convolution primitives of the table core/primitives.def, for code that lists them (CLI
// help, hiprim list ops, fuzz targets). The registries hold what each one provides.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hiprim {

// Every row's name, in table order (bnorm, activ, ...).
const std::vector<std::string>& primitive_names();
bool is_primitive(std::string_view name);

}  // namespace hiprim
