/** @file fcd/fcd_common.h
 *  @brief Export macros and the two scalar types every fcd call uses. */
#ifndef FCD_COMMON_H
#define FCD_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#  define FCD_BEGIN_DECLS extern "C" {
#  define FCD_END_DECLS }
#else
#  define FCD_BEGIN_DECLS
#  define FCD_END_DECLS
#endif

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
