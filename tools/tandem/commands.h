/* The tandem command-line tool's subcommands. */
#ifndef TANDEM_CLI_COMMANDS_H
#define TANDEM_CLI_COMMANDS_H

/* Each returns the process exit status. argv[0] is the subcommand's name. */
int cmd_devices(int argc, char **argv);
int cmd_conformance(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
