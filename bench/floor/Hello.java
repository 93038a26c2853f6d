package floor;

/** Rung 1 of bench/floor.py: a JVM that prints one line and sleeps. */
public final class Hello {
    public static void main(String[] args) throws InterruptedException {
        System.out.println("hello");
        Thread.sleep(Long.MAX_VALUE);
    }
}
