/** @file fcd/fcd_common.h
 *  @brief Export macros and the two scalar types every fcd call uses. */
#ifndef FCD_COMMON_H
#define FCD_COMMON_H

#include <stddef.h>
#include <stdint.h>

/** @def FCD_BEGIN_DECLS
 *  Opens a block of C declarations (extern "C" when compiled as C++).
 *  @def FCD_END_DECLS
 *  Closes the block FCD_BEGIN_DECLS opened. */
#ifdef __cplusplus
#  define FCD_BEGIN_DECLS extern "C" {
#  define FCD_END_DECLS }
#else
#  define FCD_BEGIN_DECLS
#  define FCD_END_DECLS
#endif

/** @def FCD_API
 *  Marks a declaration as part of fcd's exported ABI (default visibility; the library
 *  is built with -fvisibility=hidden and a version script listing exactly these). */
#if defined(_WIN32) && !defined(FCD_STATIC)
#  ifdef FCD_BUILDING_LIBRARY
#    define FCD_API __declspec(dllexport)
#  else
#    define FCD_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define FCD_API __attribute__((visibility("default")))
#else
#  define FCD_API
#endif

/** @def FCD_DEPRECATED(msg)
 *  Marks a declaration deprecated with the message @p msg (see docs/abi-policy.md);
 *  define FCD_NO_DEPRECATION_WARNINGS to silence it. */
#if defined(__GNUC__) && !defined(FCD_NO_DEPRECATION_WARNINGS)
#  define FCD_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define FCD_DEPRECATED(msg)
#endif

/** Every size, count and index in the API: 0-based, 64-bit on every platform. */
typedef int64_t fcd_index;
/** Every real number in the API. */
typedef double fcd_real;
/** Result of every fallible call: FCD_OK (0) or a negative FCD_E_* code. */
typedef int fcd_status;

#endif /* FCD_COMMON_H */
