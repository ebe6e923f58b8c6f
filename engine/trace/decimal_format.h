#pragma once
// Decimal text of doubles for trace files, byte for byte what printf gives, without printf's cost:
// a trace of 1.6 M events formats 6.5 M numbers. Most of them are times with six decimals and byte
// or FLOP counts that are whole numbers; those are formatted with integer arithmetic, exact, and the
// rest (large, tiny, negative or fractional values) by std::to_chars, which gives printf's bytes too.
#include <string>

namespace hcpsim {

// Appends v as printf("%.*f", decimals, v) does (correctly rounded, exact ties to even).
// Precondition: v is finite, 0 <= decimals <= 9.
void append_fixed(std::string& out, double v, int decimals);

// Appends v as printf("%.17g", v) does: every double read back exactly. Precondition: v is finite.
void append_general17(std::string& out, double v);

}  // namespace hcpsim
