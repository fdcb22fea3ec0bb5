// Browser APIs the client uses that TypeScript's DOM library does not (yet) declare. Each is
// feature-tested before use; declared optional where the code tests for it.

/** HTML-in-Canvas (Chromium 157+, or 148–156 with the CanvasDrawElement blink feature). */
interface CanvasRenderingContext2D {
    drawElementImage(element: Element, x: number, y: number): void;
}
interface HTMLCanvasElement {
    /** HTML-in-Canvas: the canvas lays out its children (the `layoutsubtree` attribute). */
    layoutSubtree?: boolean;
    /** HTML-in-Canvas: asks for a `paint` event. */
    requestPaint?(): void;
}

/** `append` turns its value into a string (WebIDL USVString): the client appends numbers. */
interface URLSearchParams {
    append(name: string, value: string | number): void;
}
