#include <stdio.h>
#include <stdlib.h>
int main(int c, char **v) { printf("%d\n", atoi(v[1]) * atoi(v[2])); return 0; }
