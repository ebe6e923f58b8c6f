#pragma once
// Tensor reshapes behind the copy payloads of a2a, HyperParallel and DSA schedules: column slices,
// head splits and merges, dual-chunk and slot orders, token slices. Pure functions of their inputs;
// the caller checks that sizes divide.
#include <algorithm>
#include <cstdint>

#include "engine/reference/tensor.h"

namespace hcpsim::reference {

template <typename T>
Tensor<T> columns(const Tensor<T>& in, std::int64_t col0, std::int64_t ncol) {
  if (ncol < 0) ncol = in.D - col0;
  Tensor<T> out(in.B, in.L, in.H, ncol);
  for (std::int64_t b = 0; b < in.B; ++b)
    for (std::int64_t l = 0; l < in.L; ++l)
      for (std::int64_t h = 0; h < in.H; ++h) std::copy_n(in.row(b, l, h) + col0, ncol, out.row(b, l, h));
  return out;
}

// [x | y] along the head dimension (same B, L, H).
template <typename T>
Tensor<T> concat_columns(const Tensor<T>& x, const Tensor<T>& y) {
  Tensor<T> o(x.B, x.L, x.H, x.D + y.D);
  for (std::int64_t b = 0; b < x.B; ++b)
    for (std::int64_t l = 0; l < x.L; ++l)
      for (std::int64_t h = 0; h < x.H; ++h) {
        std::copy_n(x.row(b, l, h), x.D, o.row(b, l, h));
        std::copy_n(y.row(b, l, h), y.D, o.row(b, l, h) + x.D);
      }
  return o;
}

// Token index inside [early A chunks | late A chunks reversed] of member m's local token l (s local).
inline std::int64_t natural_token(std::int64_t A, std::int64_t m, std::int64_t l, std::int64_t s) {
  const std::int64_t cs = s / 2;
  return l < cs ? m * cs + l : A * cs + (A - 1 - m) * cs + (l - cs);
}

// Heads split into A slots along the batch dimension: slot j holds heads [j*H/A, (j+1)*H/A).
template <typename T>
Tensor<T> head_split(const Tensor<T>& x, std::int64_t A) {
  const std::int64_t Hs = x.H / A;
  Tensor<T> o(A * x.B, x.L, Hs, x.D);
  for (std::int64_t j = 0; j < A; ++j)
    for (std::int64_t b = 0; b < x.B; ++b)
      for (std::int64_t l = 0; l < x.L; ++l)
        for (std::int64_t h = 0; h < Hs; ++h) std::copy_n(x.row(b, l, j * Hs + h), x.D, o.row(j * x.B + b, l, h));
  return o;
}

// The inverse of head_split: A slots along the batch dimension back into A * H heads.
template <typename T>
Tensor<T> head_merge(const Tensor<T>& x, std::int64_t A) {
  const std::int64_t B = x.B / A;
  Tensor<T> o(B, x.L, A * x.H, x.D);
  for (std::int64_t j = 0; j < A; ++j)
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t l = 0; l < x.L; ++l)
        for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(j * B + b, l, h), x.D, o.row(b, l, j * x.H + h));
  return o;
}

// A slots of dual-chunk tokens (along the batch dimension) into one natural-order sequence.
template <typename T>
Tensor<T> chunks_to_natural(const Tensor<T>& x, std::int64_t A) {
  const std::int64_t B = x.B / A, s = x.L;
  Tensor<T> o(B, A * s, x.H, x.D);
  for (std::int64_t m = 0; m < A; ++m)
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t l = 0; l < s; ++l)
        for (std::int64_t h = 0; h < x.H; ++h)
          std::copy_n(x.row(m * B + b, l, h), x.D, o.row(b, natural_token(A, m, l, s), h));
  return o;
}

// The inverse of chunks_to_natural.
template <typename T>
Tensor<T> natural_to_chunks(const Tensor<T>& x, std::int64_t A) {
  const std::int64_t s = x.L / A;
  Tensor<T> o(A * x.B, s, x.H, x.D);
  for (std::int64_t m = 0; m < A; ++m)
    for (std::int64_t b = 0; b < x.B; ++b)
      for (std::int64_t l = 0; l < s; ++l)
        for (std::int64_t h = 0; h < x.H; ++h)
          std::copy_n(x.row(b, natural_token(A, m, l, s), h), x.D, o.row(m * x.B + b, l, h));
  return o;
}

// A slots (along the batch dimension) concatenated along the tokens, slot after slot.
template <typename T>
Tensor<T> slots_to_sequence(const Tensor<T>& x, std::int64_t A) {
  const std::int64_t B = x.B / A, s = x.L;
  Tensor<T> o(B, A * s, x.H, x.D);
  for (std::int64_t m = 0; m < A; ++m)
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t l = 0; l < s; ++l)
        for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(m * B + b, l, h), x.D, o.row(b, m * s + l, h));
  return o;
}

// The inverse of slots_to_sequence.
template <typename T>
Tensor<T> sequence_to_slots(const Tensor<T>& x, std::int64_t A) {
  const std::int64_t s = x.L / A;
  Tensor<T> o(A * x.B, s, x.H, x.D);
  for (std::int64_t m = 0; m < A; ++m)
    for (std::int64_t b = 0; b < x.B; ++b)
      for (std::int64_t l = 0; l < s; ++l)
        for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(b, m * s + l, h), x.D, o.row(m * x.B + b, l, h));
  return o;
}

// Tokens [off, off + len).
template <typename T>
Tensor<T> token_slice(const Tensor<T>& x, std::int64_t off, std::int64_t len) {
  Tensor<T> o(x.B, len, x.H, x.D);
  for (std::int64_t b = 0; b < x.B; ++b)
    for (std::int64_t l = 0; l < len; ++l)
      for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(b, off + l, h), x.D, o.row(b, l, h));
  return o;
}

// x's tokens then y's (same B, H, D).
template <typename T>
Tensor<T> token_concat(const Tensor<T>& x, const Tensor<T>& y) {
  Tensor<T> o(x.B, x.L + y.L, x.H, x.D);
  for (std::int64_t b = 0; b < x.B; ++b)
    for (std::int64_t h = 0; h < x.H; ++h) {
      for (std::int64_t l = 0; l < x.L; ++l) std::copy_n(x.row(b, l, h), x.D, o.row(b, l, h));
      for (std::int64_t l = 0; l < y.L; ++l) std::copy_n(y.row(b, l, h), y.D, o.row(b, x.L + l, h));
    }
  return o;
}

}  // namespace hcpsim::reference
