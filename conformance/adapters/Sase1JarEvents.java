import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import edu.umass.cs.sase.engine.ConfigFlags;
import edu.umass.cs.sase.engine.EngineController;
import edu.umass.cs.sase.engine.Profiling;
import edu.umass.cs.sase.stream.Event;
import edu.umass.cs.sase.stream.StockEvent;
import edu.umass.cs.sase.stream.Stream;

/**
 * cepkit's own driver of the SASE 1.0 jar over a list of events, for the vectors that list theirs (the jar's
 * command-line UI reads only its generator's configuration). conformance/adapters/sase1_jar.py writes the
 * events and compiles this class against sase.jar (it holds none of the jar's code: it calls its public API).
 *
 * <pre>java -cp DIR:sase.jar:jeval.jar Sase1JarEvents QUERY_FILE EVENTS_FILE</pre>
 *
 * EVENTS_FILE is the header line {@code id,ts,type,symbol,price,volume}, then one line per event in stream
 * order, every field but the type an int (the jar's StockEvent holds ints). Each becomes the jar's StockEvent
 * with that id, timestamp and type; the list is the engine's input Stream, and the engine (EngineController:
 * setNfa, initializeEngine, setInput, runEngine) runs the query file once with ConfigFlags.printResults on,
 * so it prints each match as its command-line UI does ("----------Here is the No.N match----------", then
 * one "ID = ..." line per event), then its profiling lines, "Number Of Matches Found: N" among them.
 */
public final class Sase1JarEvents {
    static final String HEADER = "id,ts,type,symbol,price,volume";

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Sase1JarEvents QUERY_FILE EVENTS_FILE");
            System.exit(2);
        }
        List<String> lines = Files.readAllLines(Paths.get(args[1]));
        if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
            throw new IllegalArgumentException(args[1] + ": the first line is not " + HEADER);
        }
        Event[] events = new Event[lines.size() - 1];
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",", -1);
            if (f.length != 6) {
                throw new IllegalArgumentException(args[1] + " line " + (i + 1) + ": not 6 fields");
            }
            // StockEvent(id, timestamp, symbol, price, volume, type)
            events[i - 1] = new StockEvent(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]), Integer.parseInt(f[5]), f[2]);
        }
        Stream stream = new Stream(events.length);
        stream.setEvents(events);
        ConfigFlags.printResults = true;
        EngineController engine = new EngineController();
        engine.setNfa(args[0]);
        engine.initializeEngine();   // before setInput: it clears the input
        engine.setInput(stream);
        engine.runEngine();
        Profiling.printProfiling();
    }
}
