#pragma once
// Decimal text of doubles for trace files, byte for byte what printf gives, without printf's cost:
// a trace of 1.6 M events formats 6.5 M numbers. Most of them are times with six decimals and byte
// or FLOP counts that are whole numbers; those are formatted with integer arithmetic, exact, and the
// rest (large, tiny, negative or fractional values) by std::to_chars, which gives printf's bytes too.
#include <cstddef>

namespace hcpsim {

// Most characters format_fixed and format_general17 write (a finite double, at most 9 decimals).
inline constexpr std::size_t kMaxFixedChars = 352;
inline constexpr std::size_t kMaxGeneral17Chars = 40;

// Writes v as printf("%.*f", decimals, v) does (correctly rounded, exact ties to even) at `out`,
// which has room for kMaxFixedChars, and returns the end. Precondition: v is finite, 0 <= decimals <= 9.
char* format_fixed(char* out, double v, int decimals);

// Writes v as printf("%.17g", v) does (every double read back exactly) at `out`, which has room for
// kMaxGeneral17Chars, and returns the end. Precondition: v is finite.
char* format_general17(char* out, double v);

}  // namespace hcpsim
