/* The manual page's generated sections: `fcd help --roff` prints the COMMANDS section
 * (every command's synopsis, description and options, from the lists the parser and
 * `--help` use) and the commands' MPI behaviour; the build substitutes them into
 * docs/fcd.1.in (scripts/man_page.py), so the page and the program cannot disagree. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* roff text: a backslash is \e, a line may not open with a control character, and the
 * hyphens of a word that starts with one (an option, -vg) are minus signs (\-), which
 * a reader can type back; other hyphens stay hyphens */
static void roff_text(FILE *to, const char *s) {
  int line_start = 1, in_dash_word = 0;
  for (; *s; s++) {
    char ch = *s;
    if (line_start && (ch == '.' || ch == '\'')) fputs("\\&", to);
    if (ch == ' ' || ch == '\n' || ch == '(' || ch == '[' || ch == '|' || ch == '\'')
      in_dash_word = 0;
    else if (ch == '-' && (line_start || strchr(" \n([|'", s[-1]))) in_dash_word = 1;
    if (ch == '\\') fputs("\\e", to);
    else if (ch == '-' && in_dash_word) fputs("\\-", to);
    else fputc(ch, to);
    line_start = ch == '\n';
  }
}

/* "name operands --req ARG [--opt ARG] ..." in bold names and plain arguments */
static void roff_synopsis(FILE *to, const cli_command *c) {
  fprintf(to, ".TP\n.B %s", c->name);
  if (*c->operands) {
    fputs(" \\fI", to);
    roff_text(to, c->operands);
    fputs("\\fR", to);
  }
  for (const cli_opt *o = c->opts; o->id != CLI_END; o++) {
    fputs(o->required ? " \\fB" : " [\\fB", to);
    roff_text(to, cli_option_name(o->id));
    fputs("\\fR", to);
    if (*o->arg) {
      fputs(" \\%", to); /* an argument's own hyphens do not break the line */
      roff_text(to, cli_opt_arg(o));
    }
    if (!o->required) fputc(']', to);
  }
  fputc('\n', to);
}

/* the first letter of a command's help line is upper case in the manual's sentences */
static void roff_sentence(FILE *to, const char *s) {
  if (*s >= 'a' && *s <= 'z') {
    fputc(*s - 'a' + 'A', to);
    s++;
  }
  roff_text(to, s);
}

void cli_print_roff(FILE *to, const cli_command *const *cmds, int n) {
  fputs(".SH COMMANDS\n", to);
  for (int k = 0; k < n; k++) {
    const cli_command *c = cmds[k];
    roff_synopsis(to, c);
    roff_sentence(to, c->about);
    if (c->details) {
      fputs(".IP\n", to);
      roff_text(to, c->details);
    }
    fputs(".RS\n", to);
    for (const cli_opt *o = c->opts; o->id != CLI_END; o++) {
      fputs(".TP\n\\fB", to);
      roff_text(to, cli_option_name(o->id));
      fputs("\\fR", to);
      if (*o->arg) {
        fputs(" \\fI", to);
        roff_text(to, cli_opt_arg(o));
        fputs("\\fR", to);
      }
      fputc('\n', to);
      roff_sentence(to, o->help);
      fputs(o->required ? " (required)\n" : "\n", to);
    }
    fputs(".RE\n", to);
  }
  fputs(".TP\n.B help \\fR[\\fIcommand\\fR]\nThe usage of every command, or of one.\n", to);
  fputs(".SS Under MPI\n", to);
  static const char *const how[] = {
      [CLI_MPI_ROWS] = "each rank keeps its even share of the matrix rows, the operators are "
                       "factored by MUMPS across the ranks, and rank 0 writes the results",
      [CLI_MPI_REPLICATED] = "every rank loads the whole model and the eigen-solves are "
                             "shared over the ranks"};
  for (int k = 0; k < n; k++)
    if (cmds[k]->mpi != CLI_MPI_NO)
      fprintf(to, ".TP\n.B fcd %s\n%s.\n", cmds[k]->name, how[cmds[k]->mpi]);
  fputs(".PP\nThe other commands refuse to run on several ranks (exit status 2): each "
        "rank would compute the same thing.\n", to);
}
