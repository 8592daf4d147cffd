"""`studio console`: the dealer display and the shift manager's console, in the browser.

An ordinary client of the tables it shows: it follows each table's restricted stream and asks its
replay service for the typed `TableView` (public for the dealer display, restricted for a shift
manager), and relays a signed-in person's actions over the command channel with its own
`console` key, naming the person; the table checks that person's role and journals them.
"""
