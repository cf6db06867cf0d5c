"""The physical sheets as drawn: the canvas (SVG in millimetres and a raster from one drawing) and the
printable boards, trays, sheets and pieces with their corner markers.

It stands on the ground floor, beside engine/ and vision/, because two floors above need the same
drawings: referee_app/ prints them and draws the page's diagrams on the canvas, and datasets/ renders
them into synthetic scenes. Drawn here once, a generator and the printer cannot drift apart. It imports
only engine/ (board layouts) and vision/ (marker ids and the geometry the readers assume).
"""
