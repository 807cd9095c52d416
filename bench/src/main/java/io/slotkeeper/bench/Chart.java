package io.slotkeeper.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * A PNG of the throughput figures: req/s of each kind of request at each client count (medians),
 * with the pgbench ceiling and half of it as horizontal lines. Drawn with java.awt (headless).
 */
final class Chart {

  private static final String[] SERIES = {"orders", "receipts", "replays", "baseline"};
  private static final String[] NAMES = {
    "place order", "receive stock", "replay", "baseline (check-then-insert)"
  };
  private static final Color[] COLORS = {
    new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x7f7f7f)
  };

  private Chart() {}

  static void throughput(Figures f, List<Integer> clients, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int w = 900;
    int h = 500;
    int left = 80;
    int bottom = 60;
    int top = 50;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    double ceiling = f.median("pgbench.tps");
    double max = Double.isFinite(ceiling) ? ceiling : 0;
    for (String s : SERIES) {
      for (int c : clients) {
        double v = f.median(s + ".c" + c + ".rate");
        max = Double.isFinite(v) ? Math.max(max, v) : max;
      }
    }
    max = max <= 0 ? 1 : max * 1.1;
    int plotH = h - top - bottom;
    int plotW = w - left - 20;
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString("Throughput (median req/s) by concurrent clients", left, 25);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawLine(left, top, left, top + plotH);
    g.drawLine(left, top + plotH, left + plotW, top + plotH);
    for (int i = 0; i <= 5; i++) {
      double v = max * i / 5;
      int y = top + plotH - (int) (plotH * i / 5.0);
      g.drawString(String.format("%,.0f", v), 5, y + 4);
    }
    int group = plotW / Math.max(1, clients.size());
    int bar = Math.max(4, (group - 40) / SERIES.length);
    for (int gi = 0; gi < clients.size(); gi++) {
      int c = clients.get(gi);
      int x0 = left + gi * group + 20;
      for (int si = 0; si < SERIES.length; si++) {
        double v = f.median(SERIES[si] + ".c" + c + ".rate");
        if (!Double.isFinite(v)) {
          continue;
        }
        int bh = (int) (plotH * v / max);
        g.setColor(COLORS[si]);
        g.fillRect(x0 + si * bar, top + plotH - bh, bar - 2, bh);
      }
      g.setColor(Color.BLACK);
      g.drawString(c + (c == 1 ? " client" : " clients"), x0 + bar, top + plotH + 18);
    }
    if (Double.isFinite(ceiling)) {
      g.setStroke(
          new BasicStroke(
              1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
      for (double frac : new double[] {1, 0.5}) {
        int y = top + plotH - (int) (plotH * ceiling * frac / max);
        g.setColor(frac == 1 ? Color.RED : new Color(0xd62728).darker());
        g.drawLine(left, y, left + plotW, y);
        g.drawString(
            frac == 1 ? "pgbench ceiling" : "50% of the ceiling (target at 32 clients)",
            left + plotW - 260,
            y - 4);
      }
    }
    int lx = left;
    for (int si = 0; si < SERIES.length; si++) {
      g.setColor(COLORS[si]);
      g.fillRect(lx, h - 25, 12, 12);
      g.setColor(Color.BLACK);
      g.drawString(NAMES[si], lx + 16, h - 14);
      lx += 30 + g.getFontMetrics().stringWidth(NAMES[si]);
    }
    g.dispose();
    ImageIO.write(img, "png", png.toFile());
  }
}
