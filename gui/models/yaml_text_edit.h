#pragma once
// Sets one value in YAML text by editing its line, so that every comment, blank line and the order
// of keys stay as the user wrote them (a yaml-cpp round trip drops comments). Block mappings only.
#include <QString>

namespace hcpsim::gui {

// `dotted` is a key path ("model.pipeline_model_parallel_size", "name"); `value` is YAML text put
// after "key: " as given. An existing key keeps its trailing comment; a block value below it (a
// block list) is replaced. A missing key is added at the end of its section, a missing section at
// the end of the text. Returns false with `error` set (naming the key and the line) when the path
// runs into a value written inline ("model: {…}") or into a scalar.
bool set_yaml_value(QString& text, const QString& dotted, const QString& value, QString* error = nullptr);

}  // namespace hcpsim::gui
