/* The program behind the ELF fixtures (see build.sh). The thread-local
 * counter gives the binaries a PT_TLS segment to parse. */
#include <stdio.h>

static __thread int calls = 1;

int main(int argc, char **argv)
{
    printf("hello %d %s %d\n", argc, argv[0], calls++);
    return 0;
}
