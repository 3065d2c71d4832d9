// Decks as .NET deals them: new Random(seed), then for i = n-1 down to 1,
// j = Next(i + 1), swap. Arguments: seed, n, decks; a deck a line.
using System;
using System.Text;

static class Deal {
  static void Main(string[] args) {
    var rng = new Random(int.Parse(args[0]));
    int n = int.Parse(args[1]), decks = int.Parse(args[2]);
    for (int d = 0; d < decks; ++d) {
      var a = new int[n];
      for (int i = 0; i < n; ++i) a[i] = i;
      for (int i = n - 1; i > 0; --i) {
        int j = rng.Next(i + 1);
        int t = a[i]; a[i] = a[j]; a[j] = t;
      }
      Console.WriteLine(string.Join(" ", a));
    }
  }
}
