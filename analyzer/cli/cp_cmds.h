/* cp_cmds.h - the subcommands of the collprof command.
 *
 * Each takes the arguments after the subcommand name (argv[0] is the
 * subcommand) and returns the process exit status.  These are the only
 * functions, with main(), that print.
 */
#ifndef COLLPROF_CP_CMDS_H
#define COLLPROF_CP_CMDS_H

#include <stdio.h>

int cp_cmd_record(int argc, char **argv);
int cp_cmd_dump(int argc, char **argv);
int cp_cmd_model(int argc, char **argv);
int cp_cmd_analyze(int argc, char **argv);
int cp_cmd_bench(int argc, char **argv);
int cp_cmd_probe(int argc, char **argv);
int cp_cmd_report(int argc, char **argv);
int cp_cmd_ports(int argc, char **argv);
int cp_cmd_reduce(int argc, char **argv);
int cp_cmd_trace(int argc, char **argv);
int cp_cmd_watch(int argc, char **argv);
int cp_cmd_fleet(int argc, char **argv);

/* For a subcommand's getopt_long loop run with opterr = 0 and an optstring
 * that starts with ':' (after a '+'): print the one line about what getopt
 * refused (c is getopt's ':' or '?', the argument argv[optind - 1]):
 * "collprof CMD: unknown option '--bogus' (try collprof CMD --help)" or
 * "... option '--from' needs a value ...". */
void cp_cli_bad_option(const char *cmd, char **argv, int c);

/* A subcommand's options (getopt_long, from argv[1], opterr 0; shortopts
 * starts with ':'): -h / --help writes usage(stdout); any other option
 * goes to take(c, optarg, ctx), which returns 0, or -1 after a message;
 * what getopt refuses is printed by cp_cli_bad_option.  0 with optind at
 * the first operand, 1 after --help, -1 after a message (a usage error). */
struct option;
int cp_cli_options(const char *cmd, int argc, char **argv,
                   const char *shortopts, const struct option *longopts,
                   void (*usage)(FILE *out),
                   int (*take)(int c, const char *arg, void *ctx), void *ctx);

/* A duration above 0 ("100ms", "2.5s") for option `name`: 0, or the
 * exit status of a usage error after cp_cli_usage_error's line. */
int cp_cli_positive_time(const char *cmd, const char *name, const char *text,
                         double *v);

/* "collprof CMD: <fmt...> (collprof CMD --help)" on stderr; returns 2, the
 * exit status of a usage error. */
__attribute__((format(printf, 2, 3))) int
cp_cli_usage_error(const char *cmd, const char *fmt, ...);
/* One line to `to`, formatted as printf does, with every byte outside
 * printable ASCII (and the backslash) shown as \xHH (cp_text_shown), then
 * a newline: for every line that holds a string from an input (a file
 * name, a node name, an error's text that names them). */
__attribute__((format(printf, 2, 3))) void cp_cli_say(FILE *to,
                                                      const char *fmt, ...);

/* Run a site's hook: prog (absolute) with no argument and env (NULL-
 * terminated "KEY=VALUE" strings, PATH put first) as its whole
 * environment, its output discarded, in a process group of its own that
 * is killed after timeout_s; waits for it.  A hook killed is said on
 * stderr ("collprof CMD: PROG: killed after N s").  For watch --alert and
 * fleet ingest --alert. */
void cp_cli_run_hook(const char *cmd, const char *prog,
                     const char *const *env, unsigned timeout_s);

/* The same for argv (argv[0] absolute, arguments after it): its exit
 * status (128 + the signal that ended it), or -1 when it could not run or
 * was killed at the time limit. */
int cp_cli_run(const char *cmd, const char *const *argv,
               const char *const *env, unsigned timeout_s);

/* Open the input path (a directory, or a file's directory) once for the
 * rest of the command (cp_path_anchor): the command reads and writes in
 * it by that descriptor, never through a link another user could put in
 * its place.  0, or -1 after a message naming it. */
int cp_cli_anchor(const char *cmd, const char *path);

/* Writes the page of a report object (Jansson's json_t) to output ("-":
 * stdout) through a temporary file; messages say "collprof CMD: " and name
 * input.  For collprof report and collprof analyze.  0 or -1. */
struct json_t;
int cp_report_html(struct json_t *report, const char *input,
                   const char *output, const char *cmd);

#endif
