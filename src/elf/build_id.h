/* SPDX-License-Identifier: MIT */
/* A binary's build id as text: below both the ELF reader and the profile. */
#ifndef SLIDEOPS_ELF_BUILD_ID_H
#define SLIDEOPS_ELF_BUILD_ID_H

#define BUILD_ID_HEX_MAX 80 /* 40 bytes; GNU build ids are 20, Go's are longer strings */

#endif
