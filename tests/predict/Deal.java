// Decks dealt by Collections.shuffle(list, new Random(seed)): java Deal SEED N DECKS.
import java.util.*;
public class Deal {
  public static void main(String[] a) {
    long seed = Long.parseLong(a[0]); int n = Integer.parseInt(a[1]), decks = Integer.parseInt(a[2]);
    Random r = new Random(seed);
    for (int d = 0; d < decks; ++d) {
      List<Integer> l = new ArrayList<>(); for (int i = 0; i < n; ++i) l.add(i);
      Collections.shuffle(l, r);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; ++i) { if (i > 0) sb.append(' '); sb.append(l.get(i)); }
      System.out.println(sb);
    }
  }
}
