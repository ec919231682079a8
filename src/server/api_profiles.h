/* SPDX-License-Identifier: MIT */
/* The API's answers for profiles and debug symbols (api_profiles.c), routed by api.c. */
#ifndef SLIDEOPS_SERVER_API_PROFILES_H
#define SLIDEOPS_SERVER_API_PROFILES_H

#include "server/api_call.h"

/* A page of the profiles (of server, NULL: the query's server=). */
void api__list_profiles(struct call *c, const char *server);
void api__show(struct call *c);
void api__delete_profile(struct call *c);
void api__flamegraph(struct call *c);
void api__export(struct call *c);
void api__compare(struct call *c);
void api__list_uploads(struct call *c);
void api__upload(struct call *c);
void api__delete_upload(struct call *c);

#endif
