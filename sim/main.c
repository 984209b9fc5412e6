/* main.c - placeholder entry until the commands land. */
#include <stdio.h>
int main(void)
{
    fputs("gpumemsim: no commands yet\n", stderr);
    return 2;
}
