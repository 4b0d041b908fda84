package main

// The texts of plot's usage: what every kind shares, and each kind's own.
const (
	plotText = `Draws a sweep's CSV as lines (line) or as a grid of cells (heatmap), the
real runs that 'compare --sweep' made over a sweep's lines (overlay), or
the onset curve that 'boundary --over' wrote (onset). FILE ends in .svg,
.png or .pdf. Run 'redlocksim plot KIND -h' for one kind's flags.

` + plotShared + `
The old spellings still work and print a note naming the new one:
plot RESULTS.csv ... is plot line; plot RESULTS.csv --heatmap ... is plot
heatmap; plot RESULTS.csv --overlay REAL.csv ... is plot overlay
RESULTS.csv REAL.csv; plot --boundary CURVE.csv ... is plot onset
CURVE.csv.
`

	plotShared = `A caption under the figure says what the intervals are (95% Wilson score
intervals for rates over runs, exact Poisson (Garwood) intervals for rates
per acquisition or hour, the CSV's Student t intervals for means) and how
many runs stand behind each point (the runs column); --no-caption leaves
it out. Durations ("10s") are plotted in seconds.

Axes, titles and legends name keys and columns in words with their units
("lock TTL (s)", "mutex violations (fraction of runs)"); a clock rate in
ppm is shown in percent when its values reach 1000 ppm, with "positive =
fast". --label KEY=TEXT renames a key or column and keeps its unit; a TEXT
ending in a parenthesis gives its own ("--label 'lock.ttl=TTL (seconds)'")
and then the values are shown as the CSV has them.

--where KEY=V1,V2 keeps the rows whose KEY is one of the values; --where on
different keys must all hold.
`

	lineText = `One line per value of --series (or a single line), with the confidence
interval of the y column as bars (mutex_violation_rate takes mutex_ci_low
and mutex_ci_high, resource_violation_rate the resource_ci_ pair, any
other COLUMN its COLUMN_ci_low and COLUMN_ci_high if present).

Each line has its own colour and dash pattern. Lines measured at the same
x are drawn a few points apart (at most 12 between the first and the last),
centred on the x, so that their interval bars do not hide each other.
With --logy (or --log-y) a rate of zero with an upper bound (none seen:
the interval is [0, HIGH]) is drawn as an arrow down from a bar at HIGH,
its 95% upper bound, and the legend says so; any other zero is drawn at a
floor a decade below the smallest positive value, and the y axis says
where. The rates per acquisition and per hour reach 1e-9 and below.
`

	heatmapText = `A grid of --z over two keys, --x across and --y up. A heatmap has one
equal cell per value, in order, when the values are unevenly spaced (0,
1000, 5000, 20000), and the caption says the axis is not to scale;
--even=false keeps the true spacing, --even forces equal cells. A key
whose values are words gets one equal cell each. Nothing is dropped: a
value, an interval or a tick label that does not fit its cell is replaced
by a number, [1], and a note under the figure gives it.
`

	overlayText = `The lines of plot line, and over them the points that 'compare --sweep'
ran for real (REAL.csv) as rings with their 95% intervals, each over the
line of its --series value, in its colour; the legend marks them "real".
--where applies to both files; a real row whose line it left out is
counted, not drawn.
`

	onsetText = `The onset curve that 'redlocksim boundary --over' wrote: the measured
onset against the first --over key, each bracket (from the last value safe
on every seed to the first that violated on one) as an interval bar
through its middle, and the closed form's onset beside it where one
applies. A caption line under the x axis says what the bars are and how
many seeds each probe ran; values of the verdict that did not flip in the
range are named there, not drawn. A clock rate of 1000 ppm or more is
drawn in percent.
`
)
