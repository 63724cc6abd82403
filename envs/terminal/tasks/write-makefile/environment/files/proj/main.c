#include <stdio.h>
int sq(int);
int main(void) { printf("%d\n", sq(12)); return 0; }
