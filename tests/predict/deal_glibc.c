// Decks dealt by C's srand(seed) and rand() % (i + 1) Fisher-Yates: deal_glibc SEED N DECKS.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  unsigned seed = strtoul(argv[1], 0, 10); int n = atoi(argv[2]), decks = atoi(argv[3]);
  srand(seed);
  for (int d = 0; d < decks; ++d) {
    int a[1024]; for (int i = 0; i < n; ++i) a[i] = i;
    for (int i = n - 1; i > 0; --i) { int j = rand() % (i + 1); int t = a[i]; a[i] = a[j]; a[j] = t; }
    for (int i = 0; i < n; ++i) printf(i ? " %d" : "%d", a[i]); printf("\n");
  }
  (void)argc; return 0;
}
