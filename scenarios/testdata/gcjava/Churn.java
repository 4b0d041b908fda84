// Churn allocates until the JVM's collectors have run a given number of
// times; run under -Xlog:gc it writes a real unified-logging GC log,
// which the empirical-table tests read.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

public class Churn {
    static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, b.getCollectionCount());
        }
        return n;
    }

    public static void main(String[] args) {
        long want = args.length > 0 ? Long.parseLong(args[0]) : 300;
        Object[] ring = new Object[256];
        for (long i = 0; ; i++) {
            ring[(int) (i % ring.length)] = new byte[32 * 1024];
            if (i % 1024 == 0 && collections() >= want) {
                System.out.println("collections: " + collections() + ", last " + ring.length);
                return;
            }
        }
    }
}
