/* cp_cmds.h - the subcommands of the collprof command.
 *
 * Each takes the arguments after the subcommand name (argv[0] is the
 * subcommand) and returns the process exit status.  These are the only
 * functions, with main(), that print.
 */
#ifndef COLLPROF_CP_CMDS_H
#define COLLPROF_CP_CMDS_H

int cp_cmd_record(int argc, char **argv);
int cp_cmd_dump(int argc, char **argv);
int cp_cmd_model(int argc, char **argv);

#endif
