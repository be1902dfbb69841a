package io.metaroce.bench.cli;

import io.metaroce.core.sim.fabric.Telemetry;
import io.metaroce.core.sim.scenario.ScenarioResult;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG chart of {@code metaroce sim --plot}: for every protocol run, each sender's delivery rate
 * over time (a moving average over {@value #SMOOTH_BUCKETS} telemetry buckets, since delivery is
 * counted per message), and below, the queue depth of the watched ports (the receivers' last
 * hops) over time. Drawn headless.
 *
 * <p>Stateless and thread-safe.
 */
final class SimChart {
    static final int SMOOTH_BUCKETS = 16;
    private static final int MAX_QUEUE_SERIES = 4;

    private SimChart() {
    }

    static void write(Path file, String title, List<ScenarioResult> runs) throws IOException {
        System.setProperty("java.awt.headless", "true");
        NumberAxis time = new NumberAxis("time since start (us)");
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        XYSeriesCollection queues = new XYSeriesCollection();
        for (ScenarioResult r : runs) {
            Telemetry t = r.telemetry();
            if (t == null) {
                continue;
            }
            XYSeriesCollection rates = new XYSeriesCollection();
            double bucketUs = t.bucketNanos() / 1000.0;
            for (int f = 0; f < t.flowCount(); f++) {
                XYSeries s = new XYSeries(r.protocol() + " " + t.flowName(f), false, true);
                for (int b = 0; b < t.buckets(); b++) {
                    int from = Math.max(0, b - SMOOTH_BUCKETS + 1);
                    long bytes = t.deliveredAt(f, b) - (from == 0 ? 0 : t.deliveredAt(f, from - 1));
                    double gbps = bytes * 8.0 / ((b - from + 1) * (double) t.bucketNanos());
                    s.add((b + 1) * bucketUs, gbps);
                }
                rates.addSeries(s);
            }
            XYPlot ratePlot = new XYPlot(rates, null, new NumberAxis(r.protocol() + ": rate per sender (Gbit/s)"),
                    lines(rates.getSeriesCount(), rates.getSeriesCount() <= 8));
            plot.add(ratePlot, 2);
            for (int i = 0; i < Math.min(t.portCount(), MAX_QUEUE_SERIES); i++) {
                XYSeries s = new XYSeries(r.protocol() + " queue " + t.portName(i), false, true);
                for (int b = 0; b < t.buckets(); b++) {
                    s.add((b + 1) * bucketUs, t.peakDepth(i, b) / 1024.0);
                }
                queues.addSeries(s);
            }
        }
        if (queues.getSeriesCount() > 0) {
            plot.add(new XYPlot(queues, null, new NumberAxis("queue depth, peak per bucket (KiB)"),
                    lines(queues.getSeriesCount(), true)), 1);
        }
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1400, 300 + 350 * plot.getSubplots().size());
    }

    /**
     * The chart of the planes scenario: aggregate goodput against the plane count for every
     * protocol run, with the line rate of every host's NIC ports ({@code hosts * N * link rate})
     * and, per protocol, the linear extrapolation from its goodput at the fewest planes.
     */
    static void writeScaling(Path file, String title, List<Integer> planeCounts, List<ScenarioResult> runs)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection series = new XYSeriesCollection();
        ScenarioResult first = runs.get(0);
        XYSeries lineRate = new XYSeries("line rate of the hosts' NIC ports", false, true);
        for (int n : planeCounts) {
            lineRate.add(n, first.number("hosts") * n * first.number("link_gbps_per_plane"));
        }
        series.addSeries(lineRate);
        for (ScenarioResult r : runs) {
            XYSeries measured = new XYSeries(r.protocol() + " goodput", false, true);
            XYSeries linear = new XYSeries(r.protocol() + ", linear from " + planeCounts.get(0) + " planes", false, true);
            double base = r.number("goodput_gbps_" + planeCounts.get(0) + "_planes") / planeCounts.get(0);
            for (int n : planeCounts) {
                measured.add(n, r.number("goodput_gbps_" + n + "_planes"));
                linear.add(n, base * n);
            }
            series.addSeries(measured);
            series.addSeries(linear);
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < series.getSeriesCount(); i++) {
            boolean extrapolated = i == 0 || i % 2 == 0;
            renderer.setSeriesStroke(i, extrapolated
                    ? new BasicStroke(1.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
                    : new BasicStroke(2.0f));
        }
        XYPlot plot = new XYPlot(series, new NumberAxis("planes"), new NumberAxis("aggregate goodput (Gbit/s)"),
                renderer);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 700);
    }

    private static XYLineAndShapeRenderer lines(int series, boolean legend) {
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < series; i++) {
            r.setSeriesStroke(i, new BasicStroke(1.0f));
            r.setSeriesVisibleInLegend(i, legend);
        }
        return r;
    }
}
