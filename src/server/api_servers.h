/* SPDX-License-Identifier: MIT */
/* The API's answers for servers and their captures (api_servers.c), routed by api.c. */
#ifndef SLIDEOPS_SERVER_API_SERVERS_H
#define SLIDEOPS_SERVER_API_SERVERS_H

#include "server/api_call.h"

void api__list_servers(struct call *c);
void api__get_server(struct call *c);
void api__delete_server(struct call *c);
void api__new_enrolment(struct call *c);
void api__check(struct call *c);
void api__top(struct call *c);
void api__start_capture(struct call *c);
void api__stop_capture(struct call *c);
void api__capture_status(struct call *c);
void api__remove_profiler(struct call *c);
void api__servers_profiles(struct call *c);

#endif
